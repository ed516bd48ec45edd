#!/usr/bin/env bash
# Both flows as three organisations script them: separate wallet homes, each with its own .env
# (the chain's variables from `vc chain env` plus its own WALLET_KEY), one shared chain.
#   test/e2e/three-parties.sh WORKDIR DEPLOYER_HOME DEPLOYER_ENV ISSUER_KEY HOLDER_KEY VERIFIER_KEY
# DEPLOYER_HOME is a wallet that deployed the contracts, configured by DEPLOYER_ENV (its RPC_URL and
# WALLET_KEY). Run it with no vc variables in the environment: they would win over the .env files.
# The issuer serves its reverse hash service (`vc serve --role issuer`) so the holder can check
# revocation; RHS_URL in the issuer's .env makes credentials issued from the CLI name it.
# Leaves every result in WORKDIR; exits non-zero at the first failing step.
set -euo pipefail

work="${1:?usage: three-parties.sh WORKDIR DEPLOYER_HOME DEPLOYER_ENV ISSUER_KEY HOLDER_KEY VERIFIER_KEY}"
deployer="${2:?deployer home}"
deployer_env="${3:?deployer .env}"
mkdir -p "$work"
VC="${VC:-node $(dirname "$0")/../../dist/bin/vc.js}"
field() { node -e 'const v=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); console.log(process.argv[2].split(".").reduce((o,k)=>o[k],v))' "$@"; }
free_port() { node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

rhs_port="$(free_port)"
declare -A key=([issuer]="${4:?issuer key}" [holder]="${5:?holder key}" [verifier]="${6:?verifier key}")
for party in issuer holder verifier; do
  $VC --home "$deployer" --env "$deployer_env" chain env -o "$work/$party.env"
  echo "WALLET_KEY=${key[$party]}" >> "$work/$party.env"
done
echo "RHS_URL=http://127.0.0.1:$rhs_port" >> "$work/issuer.env"
issuer() { $VC --json --home "$work/issuer" --env "$work/issuer.env" "$@"; }
holder() { $VC --json --home "$work/holder" --env "$work/holder.env" "$@"; }
verifier() { $VC --json --home "$work/verifier" --env "$work/verifier.env" "$@"; }

# exec: $! is then the server itself, which the trap stops (a function run in the background is a
# subshell, and killing it left the server running after the script).
(exec $VC --json --home "$work/issuer" --env "$work/issuer.env" serve --role issuer --port "$rhs_port") > "$work/issuer-serve.json" 2> "$work/issuer-serve.log" &
served=$!
trap 'kill $served 2>/dev/null || true; wait $served 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q listening "$work/issuer-serve.json" 2>/dev/null && break; sleep 0.2; done

# Proof by query.
holder holder did create -o "$work/holder-did.json"
verifier verifier request -o "$work/request.json"
issuer issuer issue --holder "$(field "$work/holder-did.json" did_String)" -o "$work/credential.json"
holder holder prove-submit --credential "$work/credential.json" --request "$work/request.json" -o "$work/proof.json"
verifier verifier status --request "$(field "$work/request.json" id)" --address "$(field "$work/proof.json" sender)" > "$work/status.json"

# Selective disclosure.
issuer issuer issue --format bbs -o "$work/sd.json"
holder holder import-sd --credential "$work/sd.json" > "$work/import.json"
verifier verifier nonce -o "$work/nonce.json"
holder holder disclose --type PassportCredential --keys name,nationality --nonce "$(field "$work/nonce.json" nonce)" -o "$work/disclosed.json"
verifier verifier verify --vc "$work/disclosed.json" --require-nonce > "$work/verified.json"
cat "$work/verified.json"
