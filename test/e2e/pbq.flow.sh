#!/usr/bin/env bash
# The proof-by-query flow as a user runs it: separate `vc` invocations on one wallet home.
#   test/e2e/pbq.flow.sh WORKDIR          (VC defaults to "node dist/bin/vc.js"; VC_HOME to WORKDIR/home)
# Leaves holder.json, issuer.json, request.json, credential.json, result.json and status.json in
# WORKDIR and prints the prove-submit mapping; exits non-zero at the first failing step.
set -euo pipefail

work="${1:?usage: pbq.flow.sh WORKDIR}"
mkdir -p "$work"
VC="${VC:-node $(dirname "$0")/../../dist/bin/vc.js}"
export VC_HOME="${VC_HOME:-$work/home}"
field() { node -e 'const v=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); console.log(process.argv[2].split(".").reduce((o,k)=>o[k],v))' "$@"; }

$VC --json holder did create -o "$work/holder.json"
$VC --json issuer did create -o "$work/issuer.json"
$VC --json verifier request -o "$work/request.json"
$VC --json issuer issue --holder "$(field "$work/holder.json" did_String)" -o "$work/credential.json"
$VC --json holder prove-submit --credential "$work/credential.json" --request "$work/request.json" -o "$work/result.json"
sender="$(field "$work/result.json" sender)"
# Read the verdict back from the UniversalVerifier, independently of the prove-submit result.
$VC --json verifier status --request "$(field "$work/request.json" id)" --address "$sender" > "$work/status.json"
cat "$work/result.json"
