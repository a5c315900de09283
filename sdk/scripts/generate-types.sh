#!/usr/bin/env bash
# Generates the SDK's types from the committed contract: contract/openapi.json → sdk/src/generated/openapi.ts
# (or the path given). `npm run -s sdk:types` after the contract changes; a test fails while the file is stale.
# --empty-objects-unknown: an object schema the contract does not detail yet is an open object, not an empty one.
# --default-non-nullable=false: a request field with a default (a query's limit, offset) stays optional to the caller.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-sdk/src/generated/openapi.ts}
node_modules/.bin/openapi-typescript contract/openapi.json --empty-objects-unknown --default-non-nullable=false --output "$OUT" >&2
