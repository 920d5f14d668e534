# Two commands on a fresh machine:
#   make dev    set up, start the local stack on the embedded defaults, run a dialog and three moderation checks end to end
#               (needs Python 3.11+ and the package index)
#   make test   set up, then lint, type-check and run the whole test suite with coverage
#               (needs Python 3.11+, CPython 3.12 for the packaging tests, and the package index for the SAM CLI;
#               `make preflight` checks the first two and says what is missing in one line)
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
# The AWS SAM CLI for `sam validate --lint` (below), in a venv of its own.
SAM_CLI_VERSION := 1.170.0
SAM_VENV ?= .venv-sam

.PHONY: dev test preflight deploy lint sam-validate typecheck unit openapi interview-schemas sps-schemas bench clean package layer-lock train eval

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

dev: $(BIN)/.installed
	$(BIN)/rails serve --demo

test: preflight $(BIN)/.installed $(SAM_VENV)/bin/.installed lint typecheck sam-validate
	$(BIN)/pytest --cov --cov-report=term --cov-report=xml

preflight:
	@$(PYTHON) infra/persona_rails_dev/preflight.py

# `sam validate --lint`, the AWS SAM CLI's own check, in a venv of its own: the SAM CLI pins exact
# versions of boto3, click and cfn-lint that the project's dev dependencies must not be held to.
# Pinned, so that a new cfn-lint's new rules never turn CI red without a change here. Offline.
$(SAM_VENV)/bin/.installed:
	$(PYTHON) -m venv $(SAM_VENV)
	@$(SAM_VENV)/bin/python -m pip install --quiet 'aws-sam-cli==$(SAM_CLI_VERSION)' > $(SAM_VENV)/pip.log 2>&1 \
		|| { echo "make test needs the AWS SAM CLI $(SAM_CLI_VERSION), and pip could not install it from the package index (see $(SAM_VENV)/pip.log)" >&2; exit 1; }
	touch $@

sam-validate: $(SAM_VENV)/bin/.installed
	SAM_CLI_TELEMETRY=0 $(SAM_VENV)/bin/sam validate --lint --template template.yaml --region ap-southeast-1

# ruff formats the Python code blocks of the Markdown docs too.
lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The layer, the tooling and every function's package (functions/<name>/<name>, as CodeUri lays it out).
FUNCTION_DIRS := $(wildcard functions/*)
empty :=
space := $(empty) $(empty)
typecheck: $(BIN)/.installed
	MYPYPATH=shared:infra:$(subst $(space),:,$(FUNCTION_DIRS)) $(BIN)/mypy shared/persona_rails \
		infra/persona_rails_dev $(foreach dir,$(FUNCTION_DIRS),$(dir)/$(notdir $(dir)))

unit: $(BIN)/.installed
	$(BIN)/pytest tests/unit

# The judges' local models, trained from eval/<judge>/train.jsonl, byte for byte the same on every run
# (docs/judges.md); `make eval` measures them on the held-back test splits.
train: $(BIN)/.installed
	$(BIN)/python -m persona_rails_dev.train

eval: $(BIN)/.installed
	$(BIN)/rails eval

# Regenerate docs/openapi/<function>.json after changing a route (the tests fail while one is stale).
openapi: $(BIN)/.installed
	$(BIN)/rails openapi

# Regenerate the interview artifacts' JSON Schemas after changing their models (a test fails while stale).
interview-schemas: $(BIN)/.installed
	PYTHONPATH=shared:functions/interview_turn $(BIN)/python -m interview_turn.schema_files

# Regenerate the SPS documents' JSON Schemas after changing their models (a test fails while stale).
sps-schemas: $(BIN)/.installed
	PYTHONPATH=shared:functions/sps_encounter $(BIN)/python -m sps_encounter.schema_files

# The layer and every function of template.yaml for arm64 python3.12, without Docker: .build/layer,
# .build/functions/<LogicalId>, their zips in .build/dist and .build/package-report.json (sizes).
# Needs CPython 3.12 for the bytecode (python3.12 on PATH, e.g. PYENV_VERSION=3.12.1).
package: $(BIN)/.installed
	$(BIN)/python -m persona_rails_dev.package

# Build, check and deploy a stage (docs/deploy.md): `make deploy STAGE=dev` (or prod). What ships
# is what `make package` built; samconfig.toml holds the stage's answers, and $AWS_REGION, when
# set, is the region. Needs CPython 3.12 (as `make package`) and AWS credentials.
STAGE ?= dev
deploy: package $(SAM_VENV)/bin/.installed
	SAM_CLI_TELEMETRY=0 $(SAM_VENV)/bin/sam deploy --template-file .build/template.yaml \
		--config-file "$(CURDIR)/samconfig.toml" --config-env $(STAGE) $(if $(AWS_REGION),--region $(AWS_REGION))

# Re-resolve requirements/layer.lock after changing shared/requirements.txt.
layer-lock: $(BIN)/.installed
	$(BIN)/python -m persona_rails_dev.package lock

$(BIN)/.bench: $(BIN)/.installed
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $@

# Every benchmark of docs/benchmarks.md; BENCH_FLAGS=--all adds those needing valgrind, a build or ~40 min.
bench: $(BIN)/.bench
	$(BIN)/python -m bench.run_all $(BENCH_FLAGS)

clean:
	rm -rf $(VENV) $(SAM_VENV) .local .pytest_cache .mypy_cache .ruff_cache .coverage coverage.xml
