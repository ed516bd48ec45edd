/**
 * The walkthrough behind `vc demo`: both flows end to end, for real, on the configured network
 * (the embedded default when nothing is configured). Each step reports progress through the
 * context and is recorded in the result, so the CLI can render a summary.
 */
import type { Context } from '../context.js';

export type DemoFlow = 'pbq' | 'sd' | 'both';

export interface DemoQuery {
  field: string;
  op: '$eq' | '$lt' | '$gt' | '$in' | '$nin' | '$ne';
  value: number | string | Array<number | string>;
}

export interface DemoOptions {
  flow: DemoFlow;
  /** Fields revealed in the selective-disclosure flow. */
  revealKeys: string[];
  /** Query proven in the proof-by-query flow. */
  query: DemoQuery;
}

/** The parties of the story: who acts in a step. */
export type DemoRole = 'Issuer' | 'Holder' | 'Verifier' | 'Chain';

export interface DemoStep {
  flow: 'holder' | 'pbq' | 'sd';
  name: string;
  /** The party that acts. */
  role: DemoRole;
  /** The party that receives what the step produces, when something crosses over. */
  to?: DemoRole;
  ok: boolean;
  ms: number;
  detail: string;
  /** The step told as one line (and its detail lines), as the CLI shows it. */
  line: string;
}

export interface DemoResult {
  ok: boolean;
  holderDid?: string;
  steps: DemoStep[];
  pbq?: {
    holderDid: string;
    issuerDid: string;
    requestId: number;
    txHash: string;
    onChain: boolean;
    /** What the holder proved, e.g. "birthDate < 20010101"; the value itself stayed in its wallet. */
    statement: string;
  };
  sd?: {
    issuer: string;
    disclosed: Record<string, unknown>;
    /** The fields of the credential the verifier never saw (by name). */
    hidden: string[];
    verified: boolean;
    message: string;
  };
}

/** The fields of the sample passport a user can choose to reveal. */
export const DEMO_REVEALABLE_KEYS = ['id', 'name', 'nationality', 'birthDate', 'passportNumber', 'expiryDate', 'customerReference', 'publicAddress'];
export const DEMO_DEFAULTS: Omit<DemoOptions, 'flow'> = {
  revealKeys: ['id', 'name', 'nationality'],
  query: { field: 'birthDate', op: '$lt', value: 20010101 },
};

/** The width of the role column ("Verifier → Holder"), so the stories line up. */
const ROLE_COLUMN = 19;
const OPERATOR_TEXT: Record<DemoQuery['op'], string> = { $eq: '=', $ne: '≠', $lt: '<', $gt: '>', $in: 'in', $nin: 'not in' };

/** A long identifier cut in the middle (DIDs, hashes): its kind and first characters, then its end. */
export function shortId(id: string, keep = 10): string {
  const head = id.startsWith('did:') ? id.lastIndexOf(':') + 1 : id.startsWith('0x') ? 2 : 0;
  if (id.length <= head + 2 * keep + 1) return id;
  return `${id.slice(0, head + keep)}…${id.slice(-Math.ceil(keep / 2))}`;
}

/** A field value as a person reads it in one line. */
function showValue(value: unknown): string {
  if (typeof value === 'string') return value.startsWith('did:') ? shortId(value) : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** The statement a query proves, e.g. "birthDate < 20010101". */
export function queryStatement(query: DemoQuery): string {
  const value = Array.isArray(query.value) ? `[${query.value.join(', ')}]` : String(query.value);
  return `${query.field} ${OPERATOR_TEXT[query.op]} ${value}`;
}

function roleTag(role: DemoRole, to: DemoRole | undefined): string {
  return (to === undefined ? role : `${role} → ${to}`).padEnd(ROLE_COLUMN);
}

interface StepStory<T> {
  flow: DemoStep['flow'];
  name: string;
  role: DemoRole;
  to?: DemoRole;
  /** The spinner's label while the step runs. */
  doing: string;
  /** What happened, told from the result (the first line; more lines are details below it). */
  done: (value: T) => string;
  /** A short detail for the JSON result. */
  detail: (value: T) => string;
}

class StepRecorder {
  readonly steps: DemoStep[] = [];
  constructor(private readonly ctx: Context) {}

  async run<T>(story: StepStory<T>, fn: () => Promise<T>): Promise<T> {
    const tag = roleTag(story.role, story.to);
    const progress = this.ctx.progress.start(`${tag}${story.doing}`, { narrate: true });
    const started = Date.now();
    const record = (ok: boolean, detail: string, line: string): void => {
      this.steps.push({ flow: story.flow, name: story.name, role: story.role, ...(story.to === undefined ? {} : { to: story.to }), ok, ms: Date.now() - started, detail, line });
    };
    try {
      const value = await fn();
      const line = `${tag}${story.done(value)}`.replace(/\n/g, `\n  ${' '.repeat(ROLE_COLUMN)}`);
      record(true, story.detail(value), line);
      progress.succeed(line);
      return value;
    } catch (error) {
      const line = `${tag}${story.doing}: ${(error as Error).message}`;
      record(false, (error as Error).message, line);
      progress.fail(line);
      throw error;
    }
  }
}

async function runProofByQuery(ctx: Context, options: DemoOptions, steps: StepRecorder, holderDid: string): Promise<NonNullable<DemoResult['pbq']>> {
  const pbq = {
    did: await import('./pbq/identities.js'),
    request: await import('./pbq/request.js'),
    issue: await import('./pbq/pbqIssuance.js'),
    prove: await import('./pbq/prove.js'),
  };
  const chain = await import('./chainAccess.js');
  const statement = queryStatement(options.query);
  ctx.progress.info(`\nProof by query (iden3): the holder proves ${statement} to a verifier contract, without revealing its ${options.query.field}`);
  await steps.run(
    {
      flow: 'pbq',
      name: 'chain ready',
      role: 'Chain',
      doing: 'starting the chain and its iden3 contracts',
      done: (r) => `${r.embedded ? 'local chain' : 'chain'} ${r.chainId} at ${r.rpcUrl}, iden3 contracts deployed`,
      detail: (r) => `chain ${r.chainId} at ${r.rpcUrl}`,
    },
    async () => {
      // The embedded chain gets the verifiers of the circuits in use with its first deployment (as
      // `vc chain up` does): replacing them later, within this process, would leave the proof
      // checked against the validator deployed first.
      if (ctx.config.chain.rpcUrl === undefined) {
        const verifiers = await chain.verifiersMatchingCircuits(ctx);
        if (Object.keys(verifiers).length > 0) await chain.chainDeploy(ctx, { verifiers });
      }
      return chain.chainStatus(ctx);
    },
  );
  const issuer = await steps.run(
    { flow: 'pbq', name: 'issuer DID', role: 'Issuer', doing: 'creating its iden3 identity', done: (r) => `has the DID ${shortId(`did:${r.payload.method}:${r.payload.id}`)}`, detail: (r) => `did:${r.payload.method}:${r.payload.id}` },
    () => pbq.did.createIssuerIdentity(ctx),
  );
  const request = await steps.run(
    {
      flow: 'pbq',
      name: 'credential request registered on chain',
      role: 'Verifier',
      to: 'Chain',
      doing: `registering the request "prove ${statement}"`,
      done: (r) => `request ${r.id} registered: "prove ${statement}"`,
      detail: (r) => `request ${r.id}: ${statement} (circuit ${r.circuitId})`,
    },
    () => pbq.request.createCredentialRequest(ctx, { field: options.query.field, op: options.query.op, value: options.query.value as never }),
  );
  const issued = await steps.run(
    {
      flow: 'pbq',
      name: 'passport credential issued, state published',
      role: 'Issuer',
      to: 'Holder',
      doing: 'issuing a credential and publishing its new state on chain',
      done: (r) => {
        const types = (r.credential.type as string[] | undefined) ?? [];
        const value = (r.credential.credentialSubject as Record<string, unknown> | undefined)?.[options.query.field];
        return `${types.at(-1) ?? 'credential'} with ${options.query.field} ${showValue(value)} issued; the issuer's new state is on chain`;
      },
      detail: (r) => String(r.credential.id),
    },
    () => pbq.issue.issuePbqCredential(ctx, { holderDid }),
  );
  const submitted = await steps.run(
    {
      flow: 'pbq',
      name: 'zero-knowledge proof generated and verified on chain',
      role: 'Holder',
      to: 'Chain',
      doing: `proving ${statement} in zero knowledge`,
      done: (r) =>
        `zero-knowledge proof of ${statement} accepted by the contract (tx ${shortId(r.txHash, 8)})\n` +
        `the ${options.query.field} itself stayed with the holder: the verifier learns only that the statement is true`,
      detail: (r) => `tx ${r.txHash}`,
    },
    () => pbq.prove.proveAndSubmit(ctx, { credential: issued.credential as never, request }),
  );
  const status = await steps.run(
    {
      flow: 'pbq',
      name: 'verifier reads the contract',
      role: 'Chain',
      to: 'Verifier',
      doing: `reading request ${request.id} on the contract`,
      done: (r) => (r.isVerified ? `request ${request.id}: the holder's proof is recorded as verified` : `request ${request.id}: NOT verified`),
      detail: (r) => (r.isVerified ? 'proof recorded as verified' : 'NOT verified'),
    },
    () => pbq.request.readRequestStatus(ctx, { request: request.id, address: submitted.sender }),
  );
  return {
    holderDid,
    issuerDid: `did:${issuer.payload.method}:${issuer.payload.id}`,
    requestId: request.id,
    txHash: submitted.txHash,
    onChain: status.isVerified,
    statement,
  };
}

async function runSelectiveDisclosure(ctx: Context, options: DemoOptions, steps: StepRecorder, holderDid: string): Promise<NonNullable<DemoResult['sd']>> {
  const sd = await import('./sd/index.js');
  ctx.progress.info('\nSelective disclosure (BBS+): the holder shows the verifier some fields of a signed passport and hides the others');
  const credential = await steps.run(
    {
      flow: 'sd',
      name: 'BBS+ credential signed',
      role: 'Issuer',
      to: 'Holder',
      doing: 'signing a passport credential with BBS+',
      done: (c) => `PassportCredential with ${Object.keys(c.credentialSubject as object).length} fields, signed with BBS+ by ${shortId(String(c.issuer))}`,
      detail: (c) => `issuer ${String(c.issuer)}`,
    },
    () => sd.issueSelectiveDisclosureCredential(ctx, { holder: holderDid }),
  );
  const nonce = await steps.run(
    { flow: 'sd', name: 'verifier nonce', role: 'Verifier', to: 'Holder', doing: 'choosing a nonce', done: (n) => `a fresh nonce ${shortId(n.nonce, 8)}, so the proof cannot be replayed`, detail: (n) => n.nonce },
    async () => sd.createVerifierNonce(ctx),
  );
  const subject = credential.credentialSubject as Record<string, unknown>;
  const derived = await steps.run(
    {
      flow: 'sd',
      name: 'derived proof revealing the chosen fields',
      role: 'Holder',
      to: 'Verifier',
      doing: `deriving a proof that reveals ${options.revealKeys.join(', ')}`,
      done: (r) => {
        const shown = (r.vc as { credentialSubject: Record<string, unknown> }).credentialSubject;
        const hidden = Object.keys(subject).filter((key) => !(key in shown));
        return [
          `a derived proof bound to the nonce, revealing ${Object.keys(shown).length} of ${Object.keys(subject).length} fields`,
          `revealed  ${Object.entries(shown).map(([key, value]) => `${key} ${showValue(value)}`).join(', ')}`,
          `hidden    ${hidden.length === 0 ? '(none)' : hidden.join(', ')}`,
        ].join('\n');
      },
      detail: (r) => Object.keys((r.vc as { credentialSubject: Record<string, unknown> }).credentialSubject).join(', '),
    },
    () => sd.deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: options.revealKeys, nonce: nonce.nonce }),
  );
  const disclosed = (derived.vc as { credentialSubject: Record<string, unknown> }).credentialSubject;
  const verification = await steps.run(
    {
      flow: 'sd',
      name: 'verifier checks the proof',
      role: 'Verifier',
      doing: "checking the proof against the issuer's BBS+ public key",
      done: (r) => (r.verified ? `proof valid for the issuer's BBS+ key and the nonce: ${r.message}` : `the proof does NOT verify: ${r.message}`),
      detail: (r) => r.message,
    },
    () => sd.verifySelectiveDisclosure(ctx, { vc: derived.vc as Record<string, unknown> }),
  );
  return {
    issuer: String(credential.issuer),
    disclosed,
    hidden: Object.keys(subject).filter((key) => !(key in disclosed)),
    verified: verification.verified,
    message: verification.message,
  };
}

/**
 * Runs the chosen flows. A flow whose proof is not verified makes the result not ok; a step that
 * throws ends its flow, the other flow still runs, and the first error is rethrown at the end.
 */
export async function runDemo(ctx: Context, options: DemoOptions): Promise<DemoResult> {
  const steps = new StepRecorder(ctx);
  const result: DemoResult = { ok: true, steps: steps.steps };
  let firstError: unknown;
  // One holder for both flows: its iden3 DID is the subject of the BBS+ credential too.
  const { createHolderIdentity } = await import('./pbq/identities.js');
  const holder = await steps.run(
    { flow: 'holder', name: 'holder DID', role: 'Holder', doing: 'creating its iden3 identity in this wallet', done: (r) => `has the DID ${shortId(r.did_String)} (the subject of its credentials)`, detail: (r) => r.did_String },
    () => createHolderIdentity(ctx),
  );
  result.holderDid = holder.did_String;
  if (options.flow === 'sd' || options.flow === 'both') {
    try {
      result.sd = await runSelectiveDisclosure(ctx, options, steps, holder.did_String);
      if (!result.sd.verified) result.ok = false;
    } catch (error) {
      result.ok = false;
      firstError ??= error;
    }
  }
  if (options.flow === 'pbq' || options.flow === 'both') {
    try {
      result.pbq = await runProofByQuery(ctx, options, steps, holder.did_String);
      if (!result.pbq.onChain) result.ok = false;
    } catch (error) {
      result.ok = false;
      firstError ??= error;
    }
  }
  if (firstError !== undefined) throw firstError;
  return result;
}
