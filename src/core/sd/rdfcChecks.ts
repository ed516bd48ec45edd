/**
 * The verifier's checks of an eddsa-rdfc-2022 or ecdsa-rdfc-2019 credential up to its proof (the
 * credentials themselves, and the status lists signed with these suites). The document checks are
 * the bbs-2023 ones (VC 1.1 contexts, shape, the VC data model's rules of src/core/vcDataModel.ts,
 * terms JSON-LD would drop): the rules of the data model do not depend on the suite.
 */
import type { Context } from '../../context.js';
import { rdfcProofForm } from '../../sd/suites/rdfc/rdfcSuite.js';
import { checkBbs2023Document } from './bbs2023Credentials.js';
import type { VerificationCheck } from './documentChecks.js';
import { admitTogether, sdEngine } from './sdEngine.js';

/**
 * The checks of an eddsa-rdfc-2022 or ecdsa-rdfc-2019 credential up to its proof: the proof's
 * form (suite, purpose, a did:key of the suite's key type), contexts, shape, the data model's
 * rules, terms, and the proof itself (signature, a key the issuer controls, validity dates). The caller adds the issuer
 * binding, trust and validity checks shared with the other suites.
 */
export async function checkRdfcCredential(ctx: Context, vc: Record<string, unknown>): Promise<VerificationCheck[]> {
  const checks: VerificationCheck[] = [];
  const form = rdfcProofForm(vc, 'assertionMethod');
  if ('problem' in form) return [{ id: 'proof-type', valid: false, reason: form.problem }];
  checks.push({ id: 'proof-type', valid: true });
  // The VC 1.1 contexts, the shape and the data model's rules, as for bbs-2023.
  const checked = await checkBbs2023Document(ctx, vc, 'verifier');
  checks.push(...checked.checks);
  if (checked.checks.some((check) => !check.valid)) return checks;
  const engine = await sdEngine(ctx);
  const { proof: _proof, ...document } = vc;
  admitTogether(engine, 2);
  const [undefinedTerm, result] = await Promise.all([engine.findUndefinedTerms2023(document), engine.verifyRdfcCredential(vc, ctx.now())]);
  checks.push(undefinedTerm === undefined ? { id: 'terms', valid: true } : { id: 'terms', valid: false, reason: undefinedTerm });
  checks.push(result.verified ? { id: 'proof', valid: true } : { id: 'proof', valid: false, reason: result.reason ?? `the ${form.cryptosuite} proof does not verify` });
  return checks;
}
