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

export interface DemoStep {
  flow: 'holder' | 'pbq' | 'sd';
  name: string;
  ok: boolean;
  ms: number;
  detail: string;
}

export interface DemoResult {
  ok: boolean;
  holderDid?: string;
  steps: DemoStep[];
  pbq?: { holderDid: string; issuerDid: string; requestId: number; txHash: string; onChain: boolean };
  sd?: { issuer: string; disclosed: Record<string, unknown>; verified: boolean; message: string };
}

/** The fields of the sample passport a user can choose to reveal. */
export const DEMO_REVEALABLE_KEYS = ['id', 'name', 'nationality', 'birthDate', 'passportNumber', 'expiryDate', 'customerReference', 'publicAddress'];
export const DEMO_DEFAULTS: Omit<DemoOptions, 'flow'> = {
  revealKeys: ['id', 'name', 'nationality'],
  query: { field: 'birthDate', op: '$lt', value: 20010101 },
};

class StepRecorder {
  readonly steps: DemoStep[] = [];
  constructor(private readonly ctx: Context) {}

  async run<T>(flow: DemoStep['flow'], name: string, fn: () => Promise<T>, describe: (value: T) => string): Promise<T> {
    const progress = this.ctx.progress.start(name);
    const started = Date.now();
    try {
      const value = await fn();
      const detail = describe(value);
      this.steps.push({ flow, name, ok: true, ms: Date.now() - started, detail });
      progress.succeed(`${name}: ${detail}`);
      return value;
    } catch (error) {
      this.steps.push({ flow, name, ok: false, ms: Date.now() - started, detail: (error as Error).message });
      progress.fail(`${name}: ${(error as Error).message}`);
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
  const issuer = await steps.run('pbq', 'issuer DID', () => pbq.did.createIssuerIdentity(ctx), (r) => `did:${r.payload.method}:${r.payload.id}`);
  const request = await steps.run(
    'pbq',
    'credential request registered on chain',
    () =>
      pbq.request.createCredentialRequest(ctx, {
        field: options.query.field,
        op: options.query.op,
        value: options.query.value as never,
      }),
    (r) => `request ${r.id}: ${options.query.field} ${options.query.op} ${JSON.stringify(options.query.value)}`,
  );
  const issued = await steps.run(
    'pbq',
    'passport credential issued, state published',
    () => pbq.issue.issuePbqCredential(ctx, { holderDid }),
    (r) => String(r.credential.id),
  );
  const submitted = await steps.run(
    'pbq',
    'zero-knowledge proof generated and verified on chain',
    () => pbq.prove.proveAndSubmit(ctx, { credential: issued.credential as never, request }),
    (r) => `tx ${r.txHash}`,
  );
  const status = await steps.run(
    'pbq',
    'verifier reads the contract',
    () => pbq.request.readRequestStatus(ctx, { request: request.id, address: submitted.sender }),
    (r) => (r.isVerified ? 'proof recorded as verified' : 'NOT verified'),
  );
  return {
    holderDid,
    issuerDid: `did:${issuer.payload.method}:${issuer.payload.id}`,
    requestId: request.id,
    txHash: submitted.txHash,
    onChain: status.isVerified,
  };
}

async function runSelectiveDisclosure(ctx: Context, options: DemoOptions, steps: StepRecorder, holderDid: string): Promise<NonNullable<DemoResult['sd']>> {
  const sd = await import('./sd/index.js');
  const credential = await steps.run('sd', 'BBS+ credential signed', () => sd.issueSelectiveDisclosureCredential(ctx, { holder: holderDid }), (c) => `issuer ${String(c.issuer)}`);
  const nonce = await steps.run('sd', 'verifier nonce', async () => sd.createVerifierNonce(ctx), (n) => n.nonce);
  const derived = await steps.run(
    'sd',
    'derived proof revealing the chosen fields',
    () => sd.deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: options.revealKeys, nonce: nonce.nonce }),
    (r) => Object.keys((r.vc as { credentialSubject: Record<string, unknown> }).credentialSubject).join(', '),
  );
  const verification = await steps.run('sd', 'verifier checks the proof', () => sd.verifySelectiveDisclosure(ctx, { vc: derived.vc as Record<string, unknown> }), (r) => r.message);
  return {
    issuer: String(credential.issuer),
    disclosed: (derived.vc as { credentialSubject: Record<string, unknown> }).credentialSubject,
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
  const holder = await steps.run('holder', 'holder DID', () => createHolderIdentity(ctx), (r) => r.did_String);
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
