"""What indexing tells the rest of the project, without importing it.

`background_work` is sent with `run` where a published run's background work is done (its
phase 2's process or task, indexing.phase2.execute), after phase 2, or at once where there is
none to do: the place for what is derived from a generation once, for every process that will
search it, off the path to its first answer (the ranker's words of every unit:
search.ranking.word_packs). Receivers' failures are logged and change nothing of phase 2.
"""

from django.dispatch import Signal

background_work = Signal()
