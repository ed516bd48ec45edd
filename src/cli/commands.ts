/**
 * Every command of `vc`, one entry each: its words and the core operation behind it, with what
 * only the command line has (flag names that differ from the field, a human summary, examples).
 * Flags, their help and their validation come from the operation's input schema.
 */
import type { Command } from 'commander';
import { chain, circuits, documents, holder, iden3comm, pbq, sd, status, system, vp, wallet } from '../core/operations/index.js';
import type { CircuitsInfo, ProverChoice, ProverStatus } from '../core/circuitsAccess.js';
import type { AnyOperation } from '../core/operation.js';
import { addOperationCommand, type CliCommand } from './operationCommand.js';
import type { CliRuntime } from './runtime.js';
import { registerCompletionCommand } from './completion.js';
import { registerConfigCommands } from './config.js';
import { registerDemoCommand } from './demo.js';
import { registerServeCommand } from './serve.js';
import { registerWalletCommands } from './wallet.js';
import { redactUrls } from '../errors.js';

/** The summary of a W3C credential issued (BBS+ ones are kept by the holder, the others are not). */
function issuedSummary(result: { type?: unknown; issuer?: unknown; proof?: { cryptosuite?: string } }, input: Record<string, unknown>): string {
  const suite = result.proof?.cryptosuite ?? 'BbsBlsSignature2020';
  const bbs = suite === 'BbsBlsSignature2020' || suite === 'bbs-2023';
  const bearer = input.holder === undefined && (input.credentialSubject as { id?: unknown } | undefined)?.id === undefined;
  // A BBS+ credential is kept by this wallet's holder when it is the holder's (the store decides); the rdfc suites' never are.
  const kept = bbs ? (bearer ? '; kept by the holder (no subject id)' : '') : '; give it to the holder (vc holder present)';
  return `issued ${String((result.type as string[] | undefined)?.at(-1))} (${suite}) by ${short(result.issuer)}${kept}`;
}

/** A summary function over a result of a known shape. */
function summary<R>(render: (result: R, input: Record<string, unknown>) => string | undefined): (result: never, input: Record<string, unknown>) => string | undefined {
  return render as (result: never, input: Record<string, unknown>) => string | undefined;
}

interface Contracts {
  state: string;
  universalVerifier: string;
  mtpValidator: string;
  poseidon: string | undefined;
}

function contractLines(contracts: Contracts): string {
  return `State ${contracts.state}, UniversalVerifier ${contracts.universalVerifier}, MTP validator ${contracts.mtpValidator}` + (contracts.poseidon === undefined ? '' : `, Poseidon ${contracts.poseidon}`);
}

function circuitsLine(info: CircuitsInfo): string {
  const parts = info.circuits.map((c) => `${c.id}${c.statistics ? ` (${c.statistics.constraints.toLocaleString('en-US')} constraints)` : ''}`);
  const kind = info.source === 'configured' ? 'CIRCUITS_PATH' : info.development ? 'development keys' : 'built';
  return `${parts.join(', ')} in ${info.dir} [${kind}]`;
}

const short = (value: unknown): string => `${String(value).slice(0, 32)}...`;

/** --qr and --link of a message (an authorization request, a credential offer): the QR code of its universal link, the links. */
async function messageLinkLines(message: unknown, input: { qr?: unknown; link?: unknown }, shorten: string, otherwise: string): Promise<string | undefined> {
  if (input.qr !== true && input.link !== true) return undefined;
  const { messageLinks } = await import('../core/iden3comm/authRequest.js');
  const links = messageLinks(message);
  const lines: string[] = [];
  if (input.qr === true) {
    const { default: QRCode } = await import('qrcode');
    try {
      lines.push((await QRCode.toString(links.universalLink, { type: 'terminal', small: true })).trimEnd());
    } catch {
      // Over a QR code's capacity (about 2,900 bytes at the lowest error correction): the message
      // is made (and recorded) all the same; say so instead of failing.
      lines.push(`(no QR code: the universal link is ${links.universalLink.length} characters, more than a QR code holds; shorten ${shorten}, or ${otherwise})`);
    }
  }
  if (input.link === true || input.qr === true) lines.push(links.universalLink);
  if (input.link === true) lines.push(links.deepLink);
  return lines.join('\n');
}

interface PsNode {
  home: string;
  chainId: number;
  port: number;
  pid: number;
  startedAt: string | undefined;
  idleSeconds: number | undefined;
  idleLimitMinutes: number | null;
}

function duration(seconds: number | undefined): string {
  if (seconds === undefined) return '-';
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

/** `vc chain ps` as a table (one line per node, columns aligned). */
function psTable(nodes: PsNode[]): string {
  const rows = [
    ['HOME', 'CHAIN', 'PORT', 'PID', 'STARTED', 'IDLE', 'STOPS WHEN IDLE'],
    ...nodes.map((node) => [
      node.home,
      String(node.chainId),
      String(node.port),
      String(node.pid),
      node.startedAt?.replace(/\.\d+Z$/, 'Z') ?? '-',
      duration(node.idleSeconds),
      node.idleLimitMinutes === null ? 'never' : `after ${duration(Math.round(node.idleLimitMinutes * 60))}`,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** The result of a status change (revoke --id, suspend, unsuspend). */
interface StatusChange {
  message?: string;
  statusListIndex?: string;
  statusListCredential?: string;
}

function statusSummary(result: StatusChange): string {
  return `${String(result.message)}: index ${String(result.statusListIndex)} of ${String(result.statusListCredential)} (re-signed when changed)`;
}

/** The command groups: their description and examples. */
export const GROUPS: Readonly<Record<string, { description: string; help?: string }>> = {
  issuer: {
    description: 'issue credentials: iden3 (BJJ signature + on-chain state, for proof by query) or BBS+ (for selective disclosure)',
    help: 'Examples:\n  $ vc issuer did create\n  $ vc issuer issue --holder did:polygonid:polygon:local:2q... -o passport.json\n  $ vc issuer issue --format bbs --subject fixtures/subjects/passport.json -o sd-passport.json\n  $ vc issuer issue --format bbs-2023 --status revocation,suspension -o sd2023.json\n  $ vc issuer revoke --revocation-nonce 12345\n  $ vc issuer suspend --id "$(jq -r \'.credentialStatus[1].id\' sd2023.json)"',
  },
  'issuer did': { description: "the issuer's iden3 DID" },
  holder: {
    description: 'hold credentials: create the holder DID, prove a query on chain, disclose selected fields, present credentials',
    help: 'Examples:\n  $ vc holder did create\n  $ vc holder prove-submit --credential passport.json --request request.json\n  $ vc holder disclose --type PassportCredential --keys id,name,nationality --nonce $(vc verifier nonce --json | jq -r .nonce) -o disclosed.json\n  $ vc holder present --credential disclosed.json --challenge C --domain verifier.example -o vp.json\n  $ vc holder respond --request \'iden3comm://?request_uri=http://127.0.0.1:4000/auth-requests/ID\' --post',
  },
  'holder did': { description: "the holder's iden3 DID" },
  'holder credentials': {
    description: "the holder's credential store: every kind (iden3, BBS+ 2020, bbs-2023), several per type, each by its id",
    help: 'Examples:\n  $ vc holder credentials list --type PassportCredential\n  $ vc holder credentials import passport.json\n  $ vc holder credentials show urn:uuid:6f1c...\n  $ vc holder credentials export -o held.json\n  $ vc holder credentials delete urn:uuid:6f1c...',
  },
  verifier: {
    description: 'verify: create on-chain credential requests, check credentials and presentations',
    help: "Examples:\n  $ vc verifier request --field birthDate --op '$lt' --value 20010101 -o request.json\n  $ vc verifier status --request 1234 --address 0xf39F...\n  $ vc verifier nonce\n  $ vc verifier verify --credential disclosed.json",
  },
  chain: {
    description: 'manage the chain: the embedded local node (started on demand) and the iden3 contracts on it',
    help: 'Examples:\n  $ vc chain status            # starts the embedded node and deploys on first use\n  $ vc chain ps                # the embedded nodes of this user, every home\n  $ vc chain down              # stops the node, keeping its state\n  $ vc chain reset --yes       # forget the local chain and its deployment\n  $ RPC_URL=https://... WALLET_KEY=... vc chain deploy',
  },
  circuits: {
    description: 'build the zero-knowledge circuits (development keys) or fetch the official ones',
    help: 'Examples:\n  $ vc circuits status\n  $ vc circuits build          # compile + development setup, cached per user\n  $ vc circuits fetch --dir ~/circuits && CIRCUITS_PATH=~/circuits vc holder prove-submit ...',
  },
  documents: {
    description: 'JSON-LD contexts and JSON schemas others publish, pinned in the wallet under their URLs (never fetched)',
    help: 'Examples:\n  $ vc documents add https://example.org/contexts/kyc-v3.jsonld kyc-v3.jsonld\n  $ vc documents list\n  $ vc documents remove https://example.org/contexts/kyc-v3.jsonld',
  },
  config: { description: 'show the effective configuration, set the default wallet home', help: 'Examples:\n  $ vc config show\n  $ vc config set-home ~/wallets/work' },
  wallet: { description: 'back up the whole wallet home (keys included) to a file, and restore it', help: 'Examples:\n  $ vc wallet export -o vc-wallet.backup\n  $ vc --home ~/wallets/restored wallet import vc-wallet.backup' },
};

/** The commands backed by an operation. */
export const COMMANDS: readonly CliCommand[] = [
  {
    path: 'issuer issue',
    operation: pbq.pbqIssue,
    variants: {
      option: 'format',
      description:
        'credential format: iden3 (proof by query), bbs (selective disclosure, BbsBlsSignature2020), bbs-2023 (selective disclosure, W3C Data Integrity on VC 2.0), or eddsa-rdfc-2022 / ecdsa-rdfc-2019 (W3C Data Integrity on VC 2.0, no selective disclosure)',
      choices: { iden3: pbq.pbqIssue, bbs: sd.sdIssue, 'bbs-2023': sd.sdIssueBbs2023, 'eddsa-rdfc-2022': sd.sdIssueEddsaRdfc2022, 'ecdsa-rdfc-2019': sd.sdIssueEcdsaRdfc2019 },
      default: 'iden3',
    },
    alternatives: [{ field: 'batch', operation: pbq.pbqIssueBatch, variant: 'iden3' }],
    jsonLines: ['batch'],
    lines: (result: { credentials?: unknown[] }) => (Array.isArray(result.credentials) ? result.credentials : undefined),
    description:
      'issue a credential: iden3 (for proof by query, needs --holder, or many with --batch), BBS+ (--format bbs or bbs-2023, for selective disclosure) or W3C Data Integrity without selective disclosure (--format eddsa-rdfc-2022 or ecdsa-rdfc-2019)',
    flags: { did: 'holder <did>', holder: 'holder <did>', credentialSubject: 'subject', expirationDate: 'expires <date>', context: 'context-file' },
    aliases: { context: ['context'] },
    summary: summary<{
      type?: unknown;
      issuer?: unknown;
      credential?: { type?: string[]; credentialStatus?: { revocationNonce?: number }; credentialSubject?: { id?: string }; proof?: Array<{ type?: string }> };
      credentials?: unknown[];
      txId?: string;
      recovered?: boolean;
    }>(
      (result, input) =>
        result.credentials !== undefined
          ? `${result.recovered === true ? 'completed an interrupted batch: ' : ''}issued ${result.credentials.length} credential${result.credentials.length === 1 ? '' : 's'} with one state transition (tx ${String(result.txId)})`
          : result.credential === undefined
            ? issuedSummary(result as { type?: unknown; issuer?: unknown; proof?: { cryptosuite?: string } }, input)
            : `issued ${String(result.credential.type?.at(-1))} to ${String(result.credential.credentialSubject?.id)} (revocation nonce ${result.credential.credentialStatus?.revocationNonce ?? '?'}), ${
                result.credential.proof?.some((p) => p.type === 'Iden3SparseMerkleTreeProof') === false
                  ? 'signed only, no state transition (V3 requests prove it with a signature proof)'
                  : 'state published on chain'
              }`,
    ),
    help: `Examples:
  $ vc issuer issue --holder did:polygonid:polygon:local:2q... -o passport.json   # iden3, for proof by query
  $ vc issuer issue --batch holders.jsonl -o issued.jsonl          # many iden3 credentials, one state transition
  $ vc issuer issue --holder did:polygonid:... --status onchain -o passport.json   # status in the chain's IdentityTreeStore
  $ vc issuer issue --holder did:polygonid:... --status agent -o passport.json     # status from the issuer service's iden3comm agent
  $ vc issuer issue --holder did:polygonid:... --proof sig -o signed.json   # BJJSignature2021 only, at once (no state transition)
  $ vc issuer issue --holder did:polygonid:... --proof both -o signed.json  # the same, its claim published by vc issuer publish
  $ vc issuer issue --format bbs -o sd.json                        # BBS+ PassportCredential (sample subject)
  $ vc issuer issue --format bbs --subject alice.json --holder did:example:alice -o sd.json
  $ vc issuer issue --format bbs-2023 --mandatory-pointers /issuer,/validFrom -o sd2023.json   # VC 2.0, W3C bbs-2023
  $ vc issuer issue --format bbs-2023 --status revocation -o revocable.json   # with a W3C status list entry
  $ vc issuer issue --format bbs-2023 --credential alumni.json -o alumni-vc.json   # a whole VC 2.0 credential of yours
  $ vc issuer issue --format eddsa-rdfc-2022 --holder "$(vc holder did-key --json | jq -r .did)" -o vc.json
  $ vc issuer issue --format ecdsa-rdfc-2019 --curve P-384 -o vc-p384.json

--batch FILE: JSON Lines, one {"did": "...", "type"?: "...", "subject"?: {...}, "status"?: "rhs"|"onchain"|"agent"}
per line (the body of POST /generate-pbq-credentials), at most 1000; a line without "type" is a
PassportCredential, or of the type --context-file/--schema register; a line without "status" has
the one of --status (default rhs). Every line is checked and signed before anything is
issued (a bad line is reported by its number and nothing is issued); then all are published with
one state transition. The output is JSON Lines of {message, credential}, in input order. Running
the same file again after an interruption at any point (even after the publication, before -o was
written, or once another command completed it) gives that batch instead of issuing it twice;
after a run that wrote its output, it issues again.

--credential FILE (bbs-2023, eddsa-rdfc-2022, ecdsa-rdfc-2019): signs that whole credential (VC 2.0; inline @context objects and
language value objects allowed) instead of a passport built from --subject. Every rule of the VC
Data Model 2.0 is checked first: a credential that breaks one is refused (exit 2) naming its check,
e.g. \`credentialSchema[0]: the data schema has no type (check data-model:schema-type, VC Data
Model 2.0 §4.11)\`. Its issuer, when given, must be this issuer's DID of the suite (vc issuer bbs-key).

A BBS+ credential is signed with the key derived from IDP_BLS_SIGN_SEED_PHRASE (or the wallet's
own phrase) and issued under that key's did:key. A BBS+ credential for this wallet's holder (--holder
one of its DIDs, or no --holder) is kept in the holder's store for \`vc holder disclose\`, as is an
iden3 credential for one of its DIDs; a credential for another holder never is. An eddsa-rdfc-2022
(Ed25519) or ecdsa-rdfc-2019 (P-256, or P-384 with --curve) credential is signed with that suite's
key of the same phrase (\`vc issuer bbs-key\` lists them all) and kept by no one: the holder presents
it whole (\`vc holder present --credential FILE\`).
Every subject field must be defined by a bundled JSON-LD context, otherwise issuing is refused.

--status (bbs-2023, eddsa-rdfc-2022, ecdsa-rdfc-2019): a W3C Bitstring Status List entry of each purpose given (revocation,
suspension), at a random free index of a list of 131,072 entries kept in this wallet and served by
\`vc serve --role issuer\` at GET /status-lists/ID, named under VC_ISSUER_URL (default: the served
issuer's address, or http://127.0.0.1:3000). Change it with \`vc issuer revoke|suspend|unsuspend
--id ID\`, ID being the credentialStatus id. The entry is always disclosed, and its index is the
same in every disclosure: a verifier who sees two disclosures can link them by it.

A type that is not bundled: --context-file FILE (its JSON-LD context document) with --schema FILE
(its iden3 JSON schema), for iden3 credentials. \`vc verifier request --context-url URL\` names the
same context by its URL.`,
  },
  {
    path: 'issuer bbs-key',
    operation: sd.sdIssuerKey,
    summary: summary<{ did: string; seedSource: string }>((result) => `BBS+ issuer key ${short(result.did)} (seed from ${result.seedSource})`),
    help: `Examples:
  $ vc issuer bbs-key                      # did, verificationMethod, publicKeyBase58, seedSource
  $ vc issuer bbs-key --json | jq -r .eddsaRdfc2022.did
  $ vc issuer bbs-key --show-secret -o key-backup.json

Every key derives from IDP_BLS_SIGN_SEED_PHRASE; without it, a 12-word phrase is generated once and
kept in the wallet store (0600): the BBS+ key (did), and bbs2023, eddsaRdfc2022 and ecdsaRdfc2019
(P-256, P-384), one did:key each. Add a did to the verifier's VC_TRUSTED_ISSUERS to trust it.`,
  },
  {
    path: 'issuer did create',
    operation: pbq.pbqIssuerDid,
    summary: summary<{ did_String: string; created: boolean }>((result) => (result.created ? `created the issuer DID ${result.did_String}` : `the issuer DID ${result.did_String} (existing, reused)`)),
    help: `Examples:
  $ vc issuer did create
  $ vc issuer did create --json | jq -r .did_String
  $ ISSUER_DID=did:polygonid:polygon:local:2q... vc issuer did create

Prints the spec's {payload} (the DID as an object) with did_String (the DID) and created (false when
the wallet's issuer DID already existed, or ISSUER_DID names it).`,
  },
  {
    path: 'issuer publish',
    operation: pbq.pbqPublish,
    summary: summary<{ credentials: unknown[]; txId?: string }>((result) =>
      result.txId === undefined ? 'nothing to publish: no credential issued with --proof both is waiting' : `published the claims of ${result.credentials.length} credential${result.credentials.length === 1 ? '' : 's'} with one state transition (tx ${result.txId})`,
    ),
    help: `Examples:
  $ vc issuer issue --holder did:polygonid:... --proof both -o signed.json   # signed now, its claim waits
  $ vc issuer publish -o published.json      # one state transition for every waiting claim

The output lists each credential with its Iden3SparseMerkleTreeProof added; the issuer's stored
copies (\`vc issuer credentials --id\`) and those of a holder in this wallet gain it. A holder
elsewhere re-imports the new copy (\`vc holder credentials import\`): the held one is upgraded.`,
  },
  { path: 'issuer credentials', operation: pbq.pbqIssued, help: 'Examples:\n  $ vc issuer credentials\n  $ vc issuer credentials --id urn:uuid:6f1c... -o passport.json' },
  {
    path: 'issuer offer',
    operation: iden3comm.iden3commOffer,
    flags: { holder: 'holder <did>', id: 'id <ids>', url: 'url <url>' },
    summary: summary<{ id: string; to: string; body: { credentials: unknown[]; url: string } }>(
      (result) => `credential offer ${result.id} to ${short(result.to)}: ${result.body.credentials.length} credential${result.body.credentials.length === 1 ? '' : 's'}, fetched from ${result.body.url}`,
    ),
    display: async (result: { id: string }, input) => messageLinkLines(result, input, 'the agent URL (--url)', 'offer fewer credentials at a time'),
    help: `Examples:
  $ vc issuer offer --holder did:polygonid:... --id urn:uuid:6f1c... -o offer.json
  $ vc issuer offer --holder did:polygonid:... --id urn:uuid:6f1c...,urn:uuid:8a2d... --qr
  $ vc holder fetch --offer offer.json     # the holder's side

The offer (iden3comm credentials/1.0/offer, as the js-sdk's FetchHandler reads it) comes from this
wallet's issuer DID to the holder and names credentials this issuer issued to that holder (vc issuer
credentials lists them; another's credential, or one it did not issue, is refused). body.url is the
issuer's agent, where the holder's wallet posts a fetch-request packed as a JWZ (authV2, the
holder's proof) and gets the credential: default VC_ISSUER_URL (or the served issuer's URL) +
/agent, so \`vc serve --role issuer\` must be running there. The JSON goes to stdout or -o FILE;
--qr shows the universal link (https://wallet.privado.id/#i_m=<base64 of the offer>) as a QR code
for a terminal, --link the universal link and the iden3comm://?i_m= deep link.`,
  },
  {
    path: 'issuer revoke',
    operation: pbq.pbqRevoke,
    label: 'iden3',
    alternatives: [{ field: 'id', operation: status.statusRevoke, variant: 'W3C status list' }],
    description: 'revoke a credential: iden3 by its revocation nonce (the new state published on chain), or one issued with a W3C status list entry by --id',
    // --nonce is the verifier's nonce elsewhere (vc verifier nonce, vc holder disclose --nonce).
    flags: { nonce: 'revocation-nonce <n>' },
    aliases: { nonce: ['nonce'] },
    summary: summary<{ nonce?: number; txId?: string; message?: string; statusListIndex?: string; statusListCredential?: string }>((result) =>
      result.txId !== undefined ? `revoked nonce ${result.nonce} (tx ${result.txId})` : statusSummary(result),
    ),
    help: `Examples:
  $ vc issuer revoke --revocation-nonce "$(jq .credential.credentialStatus.revocationNonce passport.json)"
  $ vc issuer revoke --id "$(jq -r .credentialStatus.id revocable.json)"      # a bbs-2023 credential issued with --status revocation

--id takes the credential's id, or its credentialStatus id (a credential issued by vc with
--format bbs-2023 has no id of its own). The bit is set in the wallet's list and the list is
re-signed; verifiers see it at their next check. A revocation is for good.`,
  },
  {
    path: 'issuer suspend',
    operation: status.statusSuspend,
    summary: summary<StatusChange>((result) => statusSummary(result)),
    help: `Examples:
  $ vc issuer issue --format bbs-2023 --status suspension -o suspendable.json
  $ vc issuer suspend --id "$(jq -r .credentialStatus.id suspendable.json)"

--id takes the credential's id, or its credentialStatus id (for a credential with both purposes,
either entry's). Undo it with \`vc issuer unsuspend\`.`,
  },
  {
    path: 'issuer unsuspend',
    operation: status.statusUnsuspend,
    summary: summary<StatusChange>((result) => statusSummary(result)),
    help: `Examples:
  $ vc issuer unsuspend --id "$(jq -r .credentialStatus.id suspendable.json)"`,
  },
  {
    path: 'issuer status-list',
    operation: status.statusList,
    summary: summary<{ id?: string; credentialSubject?: { statusPurpose?: string } }>((result) => `status list ${String(result.id)} (${String(result.credentialSubject?.statusPurpose)}), signed`),
    help: `Examples:
  $ vc issuer status-list --id revocation-1 -o revocation-1.json
  $ vc verifier verify --credential disclosed.json --status-list revocation-1.json   # elsewhere, offline

The signed BitstringStatusListCredential, as \`vc serve --role issuer\` serves it at
GET /status-lists/ID (ID: the last segment of a credential's statusListCredential URL).`,
  },
  {
    path: 'holder did create',
    operation: pbq.pbqHolderDid,
    summary: summary<{ did_String: string; created: boolean }>((result) =>
      result.created ? `created the holder DID ${result.did_String}` : `the holder DID ${result.did_String} (existing, reused; --new creates another)`,
    ),
    help: `Examples:
  $ vc holder did create
  $ vc holder did create --new --json
  $ vc holder did create --profile-nonce 1 --json | jq -r .did_String   # a profile DID, for nullifiers

Prints the spec's record {message, did, did_String} and created (false when the wallet's holder DID
already existed and was returned; the spec's message says "did successfully created" either way).
--profile-nonce N gives the profile DID of the holder's identity with nonce N (with genesisDid and
profileNonce): issue credentials to it (vc issuer issue --holder), and V3 requests with a nullifier
session get a nullifier from its proofs; the identity's keys prove for it.`,
  },
  {
    path: 'holder prove-submit',
    operation: pbq.pbqProveSubmit,
    flags: { verifiableCredential: 'credential', credentialRequest: 'request', credentialId: 'id <id>' },
    unwrap: { verifiableCredential: 'credential' },
    summary: summary<{ txHash?: string }>((result, input) => `proof for request ${String((input.credentialRequest as { id?: unknown } | undefined)?.id)} verified on chain (tx ${result.txHash})`),
    help: `Examples:
  $ vc holder prove-submit --credential passport.json --request request.json
  $ vc holder prove-submit --credential passport.json --request request.json --json | jq .txHash
  $ vc holder prove-submit --id urn:uuid:6f1c... --request request.json    # a held credential
  $ vc holder prove-submit --request request.json     # the newest held credential the request can use
  $ vc holder prove-submit --request v3request.json --auth authV2
  $ vc holder prove-submit --request v3request.json --auth authV3-8-32

--credential takes the issuer's whole response ({message, credential}) or the bare credential;
--id a credential of the holder's store (vc holder credentials list); with neither, the newest held
iden3 credential of the request's type, context and allowed issuers (a note says so when several).
The proof's challenge is the submitting address (WALLET_KEY), so only that address can use it.
--auth chooses the UniversalVerifier's auth method: embeddedAuth (the default: the query proof's
own auth), authV2 (V3 requests: a separate authV2 proof by vc's authV2 circuit, built on first use,
over the challenge the contract computes from the sender and the responses; refused before proving
when the chain's authV2 verifier is not the one of the circuits in use, or the UniversalVerifier's
owner disabled the method), authV3 or authV3-8-32 (the same with vc's circuit of that name and the
method of that name; authV3-8-32 holds the holder's trees to 8 levels and the GIST to 32, a deeper
auth claim is refused before proving, naming --auth authV3), ethIdentity (the default,
and the only one, for a holder whose DID is the sending Ethereum address).
Exit code 1 when the query does not hold, the credential is revoked or the contract rejects.`,
  },
  {
    path: 'holder fetch',
    operation: iden3comm.iden3commHolderFetch,
    flags: { offer: 'offer <file|link>' },
    linkOrFile: ['offer'],
    summary: summary<{ offer: string; issuer: string; stored: Array<{ id: string; alreadyHeld: boolean }> }>(
      (result) => `fetched ${result.stored.length} credential${result.stored.length === 1 ? '' : 's'} of offer ${result.offer} from ${short(result.issuer)}: ${result.stored.map((item) => `${item.id}${item.alreadyHeld ? ' (already held)' : ''}`).join(', ')}`,
    ),
    help: `Examples:
  $ vc holder fetch --offer offer.json
  $ vc holder fetch --offer 'iden3comm://?i_m=eyJpZCI6...'
  $ vc holder fetch --offer 'https://wallet.privado.id/#i_m=eyJpZCI6...' --allow-remote

Fetches the credentials of an iden3comm credentials/1.0/offer (vc issuer offer's, or another
issuer's) as a Privado ID wallet does: for each credential offered, a credentials/1.0/fetch-request
from the offer's recipient (an identity of this wallet) is packed as a JWZ whose auth proof is
authV2 and posted to the offer's body.url (the issuer's agent); the credential of its
issuance-response is kept in the holder's store with the checks of vc holder credentials import
(its proof, its status, its subject), all of them or none. vc reaches only this machine
(127.0.0.1, localhost, ::1) unless --allow-remote is given, and then over https only; each exchange
has a time and size limit and follows no redirect. Exit 2 for an offer that is not one, is not for
this wallet or names an unreachable agent; exit 1 when the agent refuses.`,
  },
  {
    path: 'holder respond',
    operation: iden3comm.iden3commRespond,
    flags: { request: 'request <file|url|link>', credentialId: 'id <id>' },
    linkOrFile: ['request'],
    unwrap: { credential: 'credential' },
    // The JWZ token of an authorization response; a contract-invoke-response is JSON.
    text: (result: { token?: string }) => result.token ?? JSON.stringify(result, null, 2),
    summary: summary<{
      token?: string;
      request: string;
      from: string;
      scope: Array<{ id: number; circuitId: string }>;
      posted?: { url: string; status: number; truncated?: boolean };
      body?: { scope: Array<{ id: number; txHash: string }> };
    }>((result) =>
      result.token === undefined
        ? `submitted ${result.body?.scope.length ?? 0} proof${result.body?.scope.length === 1 ? '' : 's'} to the UniversalVerifier as ${short(result.from)} (${(result.body?.scope ?? []).map((item) => `request ${item.id}: tx ${item.txHash}`).join(', ')})`
        : `answered request ${result.request} as ${short(result.from)} with ${result.scope.length} proof${result.scope.length === 1 ? '' : 's'}${result.scope.length === 0 ? '' : ` (${result.scope.map((item) => `${item.id}: ${item.circuitId}`).join(', ')})`}` +
          (result.posted === undefined ? '' : `; posted to ${redactUrls(result.posted.url)}: the verifier answered ${result.posted.status}${result.posted.truncated === true ? ' (its answer cut to its first 64 KiB)' : ''}`),
    ),
    help: `Examples:
  $ vc holder respond --request req.json -o answer.jwz
  $ vc holder respond --request 'iden3comm://?i_m=eyJpZCI6...' --post
  $ vc holder respond --request 'iden3comm://?request_uri=http://127.0.0.1:4000/auth-requests/ID' --post
  $ vc holder respond --request 'https://wallet.privado.id/#i_m=eyJpZCI6...' --id urn:uuid:6f1c... -o answer.jwz

Answers an iden3comm authorization/1.0/request as a Privado ID wallet does: for each scope item
(credentialAtomicQueryV3 proof requests; vc answers no other circuit) the newest held iden3
credential of its type, context and allowed issuers that satisfies the query is proved (or the one
given with --credential / --id, for every item), with the item's id as the proof's challenge; the
answer (authorization/1.0/response, from the credentials' subject DID) is packed as a JWZ whose auth
proof (Groth16) is authV2 when the request's accept profiles allow it (or name none), else authV3-8-32
or authV3 (the one built already, else the small one, built on first use, about 20 s); a request
allowing none of them is refused before any proof. The token goes to stdout
or -o FILE (the result as JSON with --json); --post sends it to the request's callbackUrl and
reports the verifier's answer (exit 1 when it refuses; an answer over 64 KiB is cut, said so). A
posted answer is kept until it is written: a re-run after a crash gives it back, posting no second.

--request takes a file holding the request's JSON, an iden3comm://?i_m= or ?request_uri= link, a
universal link (https://wallet.privado.id/#i_m=...) or a URL serving the request. vc reaches only
this machine (127.0.0.1, localhost, ::1) for a request_uri, a URL or --post, unless --allow-remote
is given, and then over https only; each exchange has a time and size limit and follows no
redirect. An expired request, one that is not an authorization request, a malformed query (one
field, one operator or {} to disclose, operands of its shape), a scope item no held credential
satisfies, a circuit other than credentialAtomicQueryV3 or accept profiles without authV2
are refused before any proof (exit 2).

A proofs/1.0/contract-invoke-request (vc verifier contract-request's, or a Privado ID verifier's)
is answered on chain: each scope item (credentialAtomicQueryV3OnChain or MTPV2OnChain, registered
on the UniversalVerifier) is proved and submitted as vc holder prove-submit does (WALLET_KEY sends,
the same prechecks), and the output is the proofs/1.0/contract-invoke-response (JSON: each proof
with its txHash). A wallet acts only on its own chain: another chain_id, another contract than
this chain's UniversalVerifier, another method than submitResponse (06c86a91), a request that is
not registered (or registered with another query), or accept profiles that allow none of plain
JSON (embedded auth), an authV2 JWZ (vc's authV2 proof submitted with it; also when no profile is
named, the js-sdk's default), an authV3 or authV3-8-32 JWZ (vc's proof of that circuit, the method of
that name; authV3 rather than authV3-8-32, when both are allowed, for a holder whose trees are deeper
than 8 levels) or, for an Ethereum identity, signed JSON ES256K-R (ethIdentity) are
refused before any proof (exit 2); --post does not apply. Each submission is journaled once sent: a re-run after a crash
answers with it, submitting no second one; once the answer is written, a re-run is refused as
already verified (exit 1).`,
  },
  {
    path: 'holder disclose',
    operation: sd.sdDisclose,
    flags: { credentialType: 'type', credentialId: 'id <id>', selectiveDisclosureKeys: 'keys', nonce: 'nonce <base64>' },
    summary: summary<{ vc: { credentialSubject: Record<string, unknown>; proof?: { cryptosuite?: string } } }>((result, input) => {
      const revealed = Object.keys(result.vc.credentialSubject);
      const asked = Array.isArray(input.selectiveDisclosureKeys) ? (input.selectiveDisclosureKeys as string[]) : [];
      const absent = asked.filter((key) => !key.startsWith('/') && key !== 'id' && !revealed.includes(key));
      const proof = result.vc.proof?.cryptosuite === undefined ? 'a BbsBlsSignatureProof2020' : `a ${result.vc.proof.cryptosuite} disclosure proof`;
      // The result's message is the spec's text ("... submitted"); the command only derives.
      const left = absent.length === 0 ? '' : `; not in the credential, left out: ${absent.join(', ')}`;
      return `derived a credential revealing ${revealed.length} field${revealed.length === 1 ? '' : 's'} (${revealed.join(', ')}) with ${proof}${left}; nothing was sent: give it to the verifier (vc verifier verify --credential FILE)`;
    }),
    help: `Examples:
  $ vc holder disclose --type PassportCredential --keys id,name,nationality -o disclosed.json
  $ vc holder disclose --type PassportCredential --keys nationality --nonce "$(vc verifier nonce --json | jq -r .nonce)"
  $ vc holder disclose --keys name --credential sd.json          # --type: the credential's own
  $ vc holder disclose --id urn:uuid:6f1c... --keys name            # a held credential by its id

--type alone takes the newest held BBS+ credential of the type (a note says so when the holder has
several); --id one of the holder's store (vc holder credentials list); --credential a file.
A subject with an id (a DID) is always linked by it. A key close to a field of the credential (a
typo) is refused with the fields there are; a key like no field is left out (spec 2.5 rule 4),
and the summary says so. Nothing is sent anywhere: the output is the
derived credential for the verifier (its message is the spec's text, "proof successfully generated
and submitted", as POST /generate-selective-disclosure-vc answers).`,
  },
  {
    path: 'holder import-sd',
    operation: sd.sdImport,
    summary: summary<{ type: string; issuer: string; id: string }>((result) => `kept ${result.type} from ${short(result.issuer)} as ${result.id}`),
    help: 'BBS+ credentials only; `vc holder credentials import FILE` keeps every kind.\n\nExamples:\n  $ vc issuer issue --format bbs -o sd.json --home /tmp/issuer\n  $ vc holder import-sd --credential sd.json      # then: vc holder disclose --type PassportCredential ...',
  },
  {
    path: 'holder credentials list',
    operation: holder.holderList,
    summary: summary<{ credentials: Array<{ id: string; kind: string; type: string; issuer: string }> }>((result) =>
      result.credentials.length === 0
        ? 'the holder keeps no credential matching this'
        : `${result.credentials.length} held credential${result.credentials.length === 1 ? '' : 's'}, newest first:\n${result.credentials
            .slice(0, 20)
            .map((entry) => `  ${entry.id}  ${entry.type} (${entry.kind}) from ${short(entry.issuer)}`)
            .join('\n')}${result.credentials.length > 20 ? `\n  ... and ${result.credentials.length - 20} more` : ''}`,
    ),
    help: 'Examples:\n  $ vc holder credentials list\n  $ vc holder credentials list --type PassportCredential --issuer did:key:zUC7...\n  $ vc holder credentials list --kind iden3 --json | jq -r \'.credentials[].id\'',
  },
  {
    path: 'holder credentials show',
    operation: holder.holderShow,
    positional: [{ field: 'id', name: 'id' }],
    summary: summary<{ id: string; kind: string; type: string; issuer: string; subject?: string }>(
      (result) => `${result.type} (${result.kind}) from ${short(result.issuer)}${result.subject === undefined ? ', no subject id' : ` for ${result.subject}`}`,
    ),
    help: 'Examples:\n  $ vc holder credentials show urn:uuid:6f1c...\n  $ vc holder credentials show urn:uuid:6f1c... --json | jq .credential',
  },
  {
    path: 'holder credentials delete',
    operation: holder.holderDelete,
    positional: [{ field: 'id', name: 'id' }],
    summary: summary<{ id: string; type: string }>((result) => `deleted ${result.type} ${result.id} from the holder's store`),
    help: 'Example:\n  $ vc holder credentials delete urn:uuid:6f1c...',
  },
  {
    path: 'holder credentials import',
    operation: holder.holderImport,
    positional: [{ field: 'credential', name: 'file' }],
    unwrap: { credential: 'credential' },
    summary: summary<{ imported: Array<{ id: string; kind: string; type: string; alreadyHeld: boolean }> }>((result) =>
      result.imported.map((entry) => `${entry.alreadyHeld ? 'already held' : 'kept'} ${entry.type} (${entry.kind}) as ${entry.id}`).join('\n'),
    ),
    help: `Examples:
  $ vc holder credentials import passport.json          # an iden3 credential (or the issuer's {message, credential})
  $ vc holder credentials import sd.json                # BbsBlsSignature2020 or bbs-2023
  $ vc holder credentials import held.json              # a list, as \`vc holder credentials export\` writes it

Each credential is checked before it is kept: iden3, its BJJ signature and Merkle proof against the
issuer's state on chain, and its revocation status; BBS+, the issuer's proof and every check a
verifier makes. Its subject must be one of the holder's DIDs (vc holder did create), or absent:
a credential for someone else is refused. A list is kept whole or not at all.`,
  },
  {
    path: 'holder credentials export',
    operation: holder.holderExport,
    positional: [{ field: 'id', name: 'id' }],
    summary: summary<unknown>((result) => (Array.isArray(result) ? `${result.length} credential${result.length === 1 ? '' : 's'}` : 'the credential')),
    help: `Examples:
  $ vc holder credentials export urn:uuid:6f1c... -o passport.json     # the credential as its issuer gave it
  $ vc holder credentials export -o held.json                         # all of them, a JSON list
  $ vc holder credentials export --type PassportCredential -o passports.json
  $ vc --home ../other holder credentials import held.json`,
  },
  {
    path: 'holder did-key',
    operation: vp.vpHolderKey,
    summary: summary<{ did: string; keyType: string }>((result) => `the holder's ${result.keyType} did:key ${result.did}`),
    help: `Examples:
  $ vc holder did-key                              # created on first use, kept in the wallet (0600)
  $ vc issuer issue --format eddsa-rdfc-2022 --holder "$(vc holder did-key --json | jq -r .did)" -o vc.json

The did:key that signs this holder's presentations: have credentials issued to it (it is their
credentialSubject.id), since a verifier accepts a credential that names its subject only from that
subject. --key-type P-256 or P-384 gives the holder's ECDSA key instead (ecdsa-rdfc-2019).`,
  },
  {
    path: 'holder present',
    operation: vp.vpPresent,
    flags: { credentials: 'credential <files>' },
    fileLists: ['credentials'],
    // The output of \`vc holder disclose\` ({message, vc}) and of the VC-API ({verifiableCredential}).
    unwrap: { credentials: ['vc', 'verifiableCredential'] },
    summary: summary<{ holder?: string; verifiableCredential?: unknown[] }>(
      (result) => `signed a presentation of ${result.verifiableCredential?.length ?? 0} credential${result.verifiableCredential?.length === 1 ? '' : 's'} as ${String(result.holder)}; nothing was sent: give it to the verifier (vc verifier verify --vp FILE)`,
    ),
    help: `Examples:
  $ vc holder present --credential vc.json --challenge "$(vc verifier nonce --json | jq -r .nonce)" --domain verifier.example -o vp.json
  $ vc holder present --credential disclosed.json,vc.json --challenge c-123 --domain verifier.example

--credential takes one or more files (comma-separated): derived disclosures (the output of
\`vc holder disclose\`, bbs-2023 or BbsBlsSignatureProof2020) or whole eddsa-rdfc-2022 /
ecdsa-rdfc-2019 credentials. The presentation (VC 2.0) is signed with the holder's did:key
(\`vc holder did-key\`; proof purpose authentication) for the verifier's challenge and domain. A
credential whose subject is someone else is refused: the verifier checks that the signer is the
credentialSubject.id a credential names.`,
  },
  {
    path: 'verifier request',
    operation: pbq.pbqRequest,
    flags: { context: 'context-url <url>', circuitId: 'circuit <id>', proofType: 'proof-type <sig|mtp>', nullifierSessionID: 'nullifier-session <n>' },
    aliases: { context: ['context'] },
    summary: summary<{ id: number; circuitId: string }>((result) => `request ${result.id} (${result.circuitId}) registered on the UniversalVerifier`),
    help: `Examples:
  $ vc verifier request -o request.json                            # birthDate $lt 20010101
  $ vc verifier request --field birthDate --op '$gt' -o request.json       # born after 2001-01-01
  $ vc verifier request --field nationality --op '$in' --value NLD,BEL -o request.json
  $ vc verifier request --allowed-issuers "$(vc issuer did create --json | jq -r .did_String)"
  $ vc verifier request --circuit credentialAtomicQueryV3OnChain --proof-type sig --op '$between' --value 19900101,20010101
  $ vc verifier request --circuit credentialAtomicQueryV3OnChain --op '$sd'     # discloses birthDate on chain
  $ vc verifier request --circuit credentialAtomicQueryV3OnChain --nullifier-session 7   # one nullifier per holder profile
  $ vc verifier request --circuit credentialAtomicQueryV3OnChain --bind-verifier    # for vc verifier contract-request

--value defaults to 20010101 for the field birthDate (the default field); another field needs it.
--circuit credentialAtomicQueryV3OnChain registers with the V3 validator: more operators ($lte
$gte $between $nonbetween $exists, and $sd, whose value \`vc verifier status\` shows), and
--proof-type sig|mtp (default: either; a signature proof needs no state transition).
--bind-verifier (V3) binds the request to the UniversalVerifier: its verifierID is in the query, so
a proof must carry it, as Privado ID / js-sdk wallets prove on-chain requests (vc verifier
contract-request needs it; a nullifier session binds the request too).
--nullifier-session N (V3) asks each holder for a nullifier: Poseidon(genesis id, profile nonce,
schema, verifierID, N), with the UniversalVerifier's verifierID; N must be unused by its other
requests. Holders prove credentials issued to a profile DID (vc holder did create --profile-nonce),
and vc holder prove-submit refuses a second proof with a nullifier already on chain.
--context-url is the URL of the type's JSON-LD context (default: the bundled or registered one).`,
  },
  {
    path: 'verifier auth-request',
    operation: iden3comm.iden3commAuthRequest,
    flags: { queries: 'query <file>', context: 'context-url <url>', proofType: 'proof-type <sig|mtp>', callback: 'callback <url>', expires: 'expires <seconds>', accept: 'accept <circuits>' },
    fileLists: ['queries'],
    summary: summary<{ id: string; from: string; expires_time?: number; body: { scope: unknown[] } }>(
      (result) =>
        `authorization request ${result.id} from ${short(result.from)}${result.body.scope.length === 1 ? '' : `, ${result.body.scope.length} proof requests`}${result.expires_time === undefined ? '' : `, expires ${new Date(result.expires_time * 1000).toISOString()}`}`,
    ),
    display: async (result: { id: string }, input) => messageLinkLines(result, input, '--callback or --reason', 'serve the request (vc serve --role verifier) and link it by iden3comm://?request_uri='),
    help: `Examples:
  $ vc verifier auth-request --field birthDate --op '$lt' --value 20010101 -o req.json
  $ vc verifier auth-request --type KYCAgeCredential --context-url URL --field birthday --op '$sd' --qr -o req.json
  $ vc verifier auth-request --callback https://verifier.example/callback --expires 600 --link
  $ echo '{"type":"KYCAgeCredential","context":"URL","credentialSubject":{"birthday":{}}}' > sd.json
  $ echo '{"type":"KYCAgeCredential","context":"URL","credentialSubject":{"documentType":{"$in":[1,2]}}}' > doc.json
  $ vc verifier auth-request --query sd.json --query doc.json -o req.json
  $ vc verifier auth-request --query sd.json --accept authV3,authV3-8-32 -o req.json
  $ vc verifier verify --jwz answer.jwz --request req.json

The request (iden3comm authorization/1.0/request, made with the js-sdk's createAuthorizationRequest)
comes from this wallet's verifier DID (its own identity, created on first use) and holds one
credentialAtomicQueryV3 proof request per query; it accepts JWZ answers whose auth proof is authV2
(Groth16), or with --accept the auth circuits named (authV2, authV3, authV3-8-32: one accept
profile, iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3,authV3-8-32;alg=groth16), and is
recorded in the wallet so that \`vc verifier verify --jwz\` checks an answer against it. One query
takes the query flags of \`vc verifier request\` (all V3 operators). Several (at most 16) are
given with --query FILE (repeated, or comma-separated), each file one query in the iden3 query
language Privado ID verifiers use: {"type", "context" (default: the bundled, registered or pinned
one), "allowedIssuers" (default ["*"]), "credentialSubject": {"FIELD": {"$op": value}} or
{"FIELD": {}} to disclose it, "proofType" (BJJSignature2021 or Iden3SparseMerkleTreeProof),
"skipClaimRevocationCheck"}, checked as the flags are; each proof request gets its own random id.
Linked queries (groupId) are not made. The JSON goes to stdout or -o FILE; --qr shows
the universal link (https://wallet.privado.id/#i_m=<base64 of the request>) as a QR code for a
terminal, --link the universal link and the iden3comm://?i_m= deep link (on stdout; with -o FILE the
file still gets the JSON).`,
  },
  {
    path: 'verifier contract-request',
    operation: iden3comm.iden3commContractRequest,
    flags: { id: 'id <ids>', to: 'to <did>', expires: 'expires <seconds>' },
    summary: summary<{ id: string; from: string; body: { scope: Array<{ id: number }>; transaction_data: { contract_address: string; chain_id: number } } }>(
      (result) =>
        `contract-invoke request ${result.id} from ${short(result.from)}: prove and submit request${result.body.scope.length === 1 ? '' : 's'} ${result.body.scope.map((item) => item.id).join(', ')} to the UniversalVerifier ${result.body.transaction_data.contract_address} (chain ${result.body.transaction_data.chain_id})`,
    ),
    display: async (result: { id: string }, input) => messageLinkLines(result, input, '--reason', 'ask for fewer requests at once'),
    help: `Examples:
  $ vc verifier request --circuit credentialAtomicQueryV3OnChain --bind-verifier --op '$sd' -o request.json
  $ vc verifier contract-request --id "$(jq -r .id request.json)" --qr -o invoke.json
  $ vc verifier contract-request --id 123456789,987654321 --to did:polygonid:polygon:local:2q... --link
  $ vc holder respond --request invoke.json -o response.json     # the holder's wallet, on chain
  $ vc verifier status --request 123456789 --address 0x...

The message (iden3comm proofs/1.0/contract-invoke-request, the js-sdk's ContractInvokeRequest) asks
a Privado ID / js-sdk wallet, or vc holder respond, to prove V3 on-chain requests registered on this
chain's UniversalVerifier and to submit the proofs itself: transaction_data names the
UniversalVerifier, method 06c86a91 (submitResponse), the chain id and network; the scope holds each
request as registered on chain (read back, so the wallet proves what the validator checks); accept
holds the plain-JSON profile (embedded auth, the query proofs carry the holder's auth). It comes from
the UniversalVerifier's DID (did:iden3:privado:main:..., its verifierID): a js-sdk wallet binds its
proofs to the message's sender (their verifierID, part of the query hash), so each request must be
registered bound to the UniversalVerifier (vc verifier request --circuit
credentialAtomicQueryV3OnChain --bind-verifier, or --nullifier-session). Nothing is recorded: the
outcome is on chain (vc verifier status --request ID --address ADDRESS).
--to names the holder's DID when known (the js-sdk's handler needs it; a wallet may fill it in).
The JSON goes to stdout or -o FILE; --qr and --link as for vc verifier auth-request. A request id
that is not registered, not vc's, not a V3 on-chain request or not bound is refused (exit 2).`,
  },
  {
    path: 'verifier status',
    operation: pbq.pbqRequestStatus,
    flags: { request: 'request <id>', address: 'address <address>' },
    summary: summary<{ validatorVersion: string; disclosed?: Record<string, string> }>(
      (result) => `verified (${result.validatorVersion})${result.disclosed === undefined ? '' : `; disclosed ${Object.entries(result.disclosed).map(([field, value]) => `${field} = ${value}`).join(', ')}`}`,
    ),
    help: 'Exit code 1 when the address has no verified proof.\n\nExamples:\n  $ vc verifier status --request 123456789 --address 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  },
  {
    path: 'verifier nonce',
    operation: sd.sdNonce,
    flags: { ttlSeconds: 'ttl <seconds>' },
    summary: summary<{ expiresAt: string }>((result) => `nonce valid until ${result.expiresAt}`),
    help: `Examples:
  $ vc verifier nonce                                   # {"nonce": "...", "expiresAt": "..."}
  $ vc holder disclose --type PassportCredential --keys name --nonce "$(vc verifier nonce --json | jq -r .nonce)" -o d.json
  $ vc verifier verify --credential d.json              # uses the nonce up: verifying d.json again fails`,
  },
  {
    path: 'verifier verify',
    operation: sd.sdVerify,
    description: 'verify a credential (a BBS+ disclosure, or an eddsa-rdfc-2022 / ecdsa-rdfc-2019 credential), with --vp a presentation, or with --jwz an iden3comm answer to vc verifier auth-request: verified is false with the reason when any check fails',
    alternatives: [
      { field: 'verifiablePresentation', operation: vp.vpVerify, variant: '' },
      { field: 'jwz', operation: iden3comm.iden3commVerify, variant: '' },
    ],
    // --credential as for every other command that reads a credential (formerly --vc).
    flags: { vc: 'credential', verifiablePresentation: 'vp', jwz: 'jwz <file>', request: 'request <file>' },
    textFiles: ['jwz'],
    aliases: { vc: ['vc'] },
    unwrap: { vc: 'vc', verifiablePresentation: 'verifiablePresentation' },
    summary: summary<{ message: string }>((result) => result.message),
    help: `Examples:
  $ vc verifier verify --credential disclosed.json
  $ VC_TRUSTED_ISSUERS=did:key:zUC7... vc verifier verify --credential disclosed.json --require-nonce
  $ vc verifier verify --credential disclosed.json --status-list revocation-1.json
  $ vc verifier verify --vp vp.json --challenge "$CHALLENGE" --domain verifier.example

--credential takes the derived credential or the whole \`vc holder disclose\` response ({message, vc}).
Exit code 1 when not verified. Checks: the derived proof, the rules of the VC data model (check
data-model; a broken rule is the check data-model:<rule>, e.g. data-model:schema-type), known or
inline contexts only, every field defined, the key belongs to the issuer, the issuer is trusted
(VC_TRUSTED_ISSUERS, * for any), and
a nonce issued by \`vc verifier nonce\` is unused and unexpired (a successful verification uses it
up). A nonce the verifier did not issue is accepted unless --require-nonce or VC_REQUIRE_NONCE=true.

A credential with a W3C status list entry (credentialStatus) is checked against its list (check
"status"): the list given with --status-list FILE (from \`vc issuer status-list\`), else the
issuer's own list when this wallet is the issuer's, else the list fetched from the issuer service
on this machine (VC_ISSUER_URL, or http://127.0.0.1:3000, when on 127.0.0.1, localhost or ::1;
vc never fetches from any other address). The list must verify (signed by the credential's
issuer), have the entry's purpose and at least 131,072 entries; a revoked or suspended credential,
or one whose list is missing or refused, is not verified. A list given by file is the state when
it was signed (its validFrom): give a current one.

The suite is the one the proof names: bbs-2023 or BbsBlsSignatureProof2020 disclosures,
eddsa-rdfc-2022 or ecdsa-rdfc-2019 credentials (any issuer's did:key, resolved offline; they carry
no nonce, so with --require-nonce they must come in a presentation).

--vp FILE verifies a presentation (\`vc holder present\`, or a VC-API {verifiablePresentation}): its
proof (the holder's did:key, proof purpose authentication), the --challenge and --domain you gave
the holder, every credential inside (each as above, nonce aside), and the holder binding (a
credential that names its subject must be presented by that subject). A challenge issued by
\`vc verifier nonce\` is used up by a successful verification: the same presentation is refused
the second time; --require-nonce refuses any other challenge.

--jwz FILE --request FILE verifies, off chain, the JWZ token a Privado ID / js-sdk wallet answered a
\`vc verifier auth-request\` with: the auth proof (authV2, or authV3 / authV3-8-32 when the request
accepts them; this wallet's verification key of that circuit, built on first use), its GIST root on
the State contract (current, or replaced at most 5 minutes ago), the sender, the thread (the token
answers this request), the request's expiry, one proof for each of the request's proof requests
(a token answering only some of them is refused, naming those left), each against the request as
this wallet recorded it (the proof, the query, the issuer's state and non-revocation state on the
chain, current or replaced at most an hour ago), and replays: a token is accepted once. It prints
the sender's DID, each proof (proofs) and the values disclosed ($sd, by field), or the reason it
was refused (exit 1). Input that is no JWZ, or a
request this wallet did not make, exits 2.`,
  },
  {
    path: 'chain up',
    operation: chain.chainUp,
    summary: summary<{ chainId: number; rpcUrl: string; blockNumber: number; embedded: boolean; node?: { started: boolean } }>(
      (result) => `chain ${result.chainId} ${result.node?.started === true ? 'started' : result.embedded ? 'already running' : 'external'} at ${result.rpcUrl}, block ${result.blockNumber}`,
    ),
  },
  {
    path: 'chain status',
    operation: chain.chainStatus,
    summary: summary<{ chainId: number; rpcUrl: string; blockNumber: number; embedded: boolean; contracts: Contracts }>(
      (result) => `chain ${result.chainId} (${result.embedded ? 'embedded' : 'external'}) at ${result.rpcUrl}, block ${result.blockNumber}: ${contractLines(result.contracts)}`,
    ),
  },
  {
    path: 'chain env',
    operation: chain.chainEnv,
    text: (env: Record<string, string>) => Object.entries(env).map(([key, value]) => `${key}=${value}`).join('\n'),
    summary: summary(() => 'the variables another party sets to use this chain (it adds its own WALLET_KEY)'),
    warn: (env: Record<string, string>) => (env.RPC_URL === undefined ? 'RPC_URL is left out: it carries a key (a path, query or user info); each party sets its own RPC_URL' : undefined),
    help: 'Prints dotenv lines (JSON with --json).\n\nExamples:\n  $ vc chain env -o ../holder/.env && echo WALLET_KEY=0x... >> ../holder/.env\n  $ vc chain env --json | jq -r .BSC_ADDRESS',
  },
  {
    path: 'chain ps',
    operation: chain.chainPs,
    text: (result: { nodes: PsNode[] }) => psTable(result.nodes),
    summary: summary<{ nodes: unknown[] }>((result) => `${result.nodes.length} embedded chain node${result.nodes.length === 1 ? '' : 's'} of this user`),
    help: `Lists every embedded node of this user (any wallet home), from /proc (Linux): home, chain id,
port, pid, start, idle time, and when it stops for idleness (VC_CHAIN_IDLE_MINUTES; "never" when
\`vc chain up\` keeps it up). Stop one with \`vc --home HOME chain down\`.

Examples:
  $ vc chain ps
  $ vc chain ps --json | jq -r '.nodes[].home'`,
  },
  {
    path: 'chain down',
    operation: chain.chainDown,
    summary: summary<{ stopped: boolean; pid?: number }>((result) => (result.stopped ? `local chain node (pid ${result.pid}) stopped, state saved` : 'the local chain node was not running')),
  },
  {
    path: 'chain reset',
    operation: chain.chainReset,
    flags: { confirm: 'yes' },
    summary: summary<{ removedStateDir: string }>((result) => `local chain state deleted (${result.removedStateDir})`),
  },
  {
    path: 'chain deploy',
    operation: chain.chainDeploy,
    summary: summary<{ deployed: string[]; configured: string[]; chainId: number; durationMs: number; contracts: Contracts }>((result) =>
      result.deployed.length === 0 && result.configured.length === 0
        ? `contracts already deployed on chain ${result.chainId}: ${contractLines(result.contracts)}`
        : `deployed ${result.deployed.length} contracts on chain ${result.chainId} in ${(result.durationMs / 1000).toFixed(1)} s: ${contractLines(result.contracts)}`,
    ),
  },
  {
    path: 'circuits build',
    operation: circuits.circuitsBuild,
    summary: summary<CircuitsInfo & { prover: ProverChoice }>(
      (info) => `${info.built.length === 0 ? 'up to date' : `built ${info.built.join(', ')}`}: ${circuitsLine(info)}; prover: ${info.prover.prover} (${info.prover.reason})`,
    ),
    warn: (info: CircuitsInfo & { prover: ProverChoice }) =>
      info.development
        ? `development keys: for local chains only, never for a public network${info.prover.prover === 'snarkjs' && info.prover.reason !== 'VC_PROVER=snarkjs' ? `; ${info.prover.reason}, proofs use snarkjs` : ''}`
        : info.prover.prover === 'snarkjs' && info.prover.reason !== 'VC_PROVER=snarkjs'
          ? `${info.prover.reason}; proofs use snarkjs`
          : undefined,
    help: 'Examples:\n  $ vc circuits build\n  $ vc circuits build --circuit credentialAtomicQueryV3OnChain-16-16-64-16-32,credentialAtomicQueryV3OnChain\n  $ vc circuits build --circuit authV3-8-32,authV3\n  $ vc circuits build --force --json',
  },
  {
    path: 'circuits status',
    operation: circuits.circuitsStatus,
    summary: summary<CircuitsInfo & { upToDate: boolean; prover: ProverStatus; onDemand: Array<{ id: string; complete: boolean }> }>(
      (info) =>
        `${info.upToDate ? circuitsLine(info) : `not built yet (run \`vc circuits build\`; ${info.dir})`}` +
        (info.onDemand.length === 0 ? '' : `; built on demand: ${info.onDemand.map((c) => `${c.id} (${c.complete ? 'built' : 'not built yet'})`).join(', ')}`) +
        `; prover: ${info.prover.inUse} (${info.prover.reason})`,
    ),
    help: 'The V3 circuits are built on demand (the first V3 request or proof, or vc circuits build --circuit ID);\nthe authV3 ones by the first vc holder respond or vc verifier verify --jwz of a request accepting\nauthV3 only, or vc circuits build --circuit ID. They are listed under onDemand.\n\nExample:\n  $ vc circuits status --json | jq ".circuits[].statistics"',
  },
  {
    path: 'circuits fetch',
    operation: circuits.circuitsFetch,
    summary: summary<{ extracted: string[]; dir: string }>((result) => `extracted ${result.extracted.length} files into ${result.dir}; set CIRCUITS_PATH=${result.dir}`),
    warn: (result: { checksum: { verified: boolean }; sha256: string }) => (result.checksum.verified ? undefined : `archive not verified against a published checksum (sha256 ${result.sha256})`),
    help: 'The archive is checked against --sha256, else against URL.sha256 when the server publishes one;\notherwise the result says it is unverified.\n\nExample:\n  $ vc circuits fetch --dir ~/circuits && export CIRCUITS_PATH=~/circuits',
  },
  {
    path: 'documents add',
    operation: documents.documentsAdd,
    positional: [
      { field: 'url', name: 'url' },
      { field: 'document', name: 'file' },
    ],
    summary: summary<{ url: string; kind: string; sha256: string; added: boolean }>((result) =>
      result.added ? `pinned the ${result.kind === 'context' ? 'JSON-LD context' : 'JSON schema'} ${result.url} (sha256 ${result.sha256.slice(0, 16)}...)` : `${result.url} was pinned already with this content`,
    ),
    // The note names the context a schema needs: a public document's URL, shown whole.
    warn: (result: { note?: string }) => (result.note === undefined ? undefined : { text: result.note, publicUrls: result.note.match(/https?:\/\/[^\s)]+/g) ?? [] }),
    help: `Examples:
  $ vc documents add https://raw.githubusercontent.com/iden3/claim-schema-vocab/main/schemas/json-ld/kyc-v3.json-ld kyc-v3.json-ld
  $ vc documents add https://raw.githubusercontent.com/iden3/claim-schema-vocab/main/schemas/json/KYCAgeCredential-v3.json KYCAgeCredential-v3.json

vc never downloads a document: get FILE from its publisher yourself, check it, and pin it here under
the URL credentials name it by. Every command that resolves a JSON-LD context or JSON schema (iden3
issuance, proofs and requests; BBS+ issuance, disclosure and verification) reads the documents
bundled with vc first, then the pinned ones. The SHA-256 of the stored copy is recorded and checked
on every read: a copy that changed in the wallet is refused until it is added again. A context is
checked by processing it as JSON-LD (a context it imports must be known first); a schema must name
no other URL ($id or $metadata.uris.jsonSchema) than URL.`,
  },
  {
    path: 'documents list',
    operation: documents.documentsList,
    summary: summary<{ documents: Array<{ url: string; intact: boolean }> }>((result) => {
      const changed = result.documents.filter((document) => !document.intact).length;
      return `${result.documents.length} pinned document${result.documents.length === 1 ? '' : 's'}${changed === 0 ? '' : `, ${changed} changed since added (refused until added again)`}`;
    }),
    help: 'Example:\n  $ vc documents list --json | jq -r ".documents[].url"',
  },
  {
    path: 'documents remove',
    operation: documents.documentsRemove,
    positional: [{ field: 'url', name: 'url' }],
    summary: summary<{ url: string }>((result) => `unpinned ${result.url}`),
    help: 'Example:\n  $ vc documents remove https://example.org/contexts/kyc-v3.jsonld',
  },
  { path: 'config show', operation: system.configShow, help: 'Example:\n  $ vc config show --json | jq .chain' },
];

/** Commands of the command line itself, with no operation (or one they call their own way). */
export const LOCAL_COMMANDS: ReadonlyArray<{ path: string; summary: string; operation?: AnyOperation; register: (program: Command, rt: CliRuntime) => void }> = [
  { path: 'serve', summary: 'serve the issuer, holder and verifier routes over HTTP (JSON)', register: registerServeCommand },
  { path: 'demo', summary: system.demo.summary, operation: system.demo, register: registerDemoCommand },
  { path: 'config set-home', summary: 'remember DIR as the default wallet home (VC_HOME and --home still override it)', register: registerConfigCommands },
  { path: 'config unset-home', summary: 'forget the default wallet home set with set-home', register: registerConfigCommands },
  { path: 'completion', summary: 'print the shell completion script of vc (bash, zsh or fish), generated from this table', register: registerCompletionCommand },
  { path: 'wallet export', summary: wallet.walletExport.summary, operation: wallet.walletExport, register: registerWalletCommands },
  { path: 'wallet import', summary: wallet.walletImport.summary, operation: wallet.walletImport, register: registerWalletCommands },
];

/** The group command for `words` (created on first use), under the program. */
function groupFor(program: Command, words: string[]): Command {
  let parent = program;
  for (let i = 0; i < words.length; i += 1) {
    const name = words[i]!;
    let next = parent.commands.find((command) => command.name() === name);
    if (next === undefined) {
      const group = GROUPS[words.slice(0, i + 1).join(' ')];
      next = parent.command(name).description(group?.description ?? name);
      if (group?.help !== undefined) next.addHelpText('after', `\n${group.help}`);
    }
    parent = next;
  }
  return parent;
}

/** Registers every command of the tables. */
export function registerCommands(program: Command, rt: CliRuntime): void {
  for (const command of COMMANDS) {
    const words = command.path.split(' ');
    addOperationCommand(groupFor(program, words.slice(0, -1)), words.at(-1)!, command, rt);
  }
  const registered = new Set<(program: Command, rt: CliRuntime) => void>();
  for (const local of LOCAL_COMMANDS) {
    if (registered.has(local.register)) continue;
    registered.add(local.register);
    local.register(program, rt);
  }
}
