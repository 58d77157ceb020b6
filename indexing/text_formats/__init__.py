"""The documentation and configuration formats RepoRift cuts into `section` units.

`sections` is the machinery they share (sections over line ranges, sized into units); each
other module is one family of formats and gives, per format, only its `TextFormat`: its file
names and the reader that finds where its sections start. indexing.text_units lists them.
"""
