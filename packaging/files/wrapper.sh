#!/bin/sh
# @NAME@: @SUMMARY@
# Relocatable: finds the application next to itself (bin/../lib/decision-service) and the settings under the same
# root (usr/../etc/decision-service), so an unpacked copy of the package works wherever it lies.
set -e
self=$(readlink -f "$0")
prefix=$(dirname "$(dirname "$self")")
app="$prefix/lib/decision-service"
root="${prefix%/usr}"
: "${DECISION_SERVICE_ENV_FILE:=$root/etc/decision-service/decision-service.env}"
export DECISION_SERVICE_ENV_FILE
# Node's flags are package.json's config.nodeFlags, filled in by build-deb.sh, as `npm start` passes them.
exec "$app/node/bin/node" @NODE_FLAGS@ "$app/dist/cli/@NAME@.js" "$@"
