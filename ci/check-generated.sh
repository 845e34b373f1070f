#!/usr/bin/env bash
# Checks that generated files in the repository match their sources:
#   docs/scenario.schema.json  <-  rea_engine::scenario::json_schema()
#
# Usage: ci/check-generated.sh           fail if a generated file is stale
#        ci/check-generated.sh --update  rewrite the generated files
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  "") ;;
  --update) export REA_UPDATE_SCHEMA=1 ;;
  *) echo "usage: $0 [--update]" >&2; exit 2 ;;
esac

cargo test --quiet -p rea-engine --lib -- --exact scenario::schema_tests::published_schema_is_current

if [[ "${REA_UPDATE_SCHEMA:-}" == 1 ]]; then
  echo "docs/scenario.schema.json regenerated; review and commit it."
else
  echo "docs/scenario.schema.json is current."
fi
