/**
 * The circuit operations users reach (`vc circuits build|status|fetch`): core's door to the
 * circuits layer, so the CLI and HTTP adapters never import it.
 */
export { buildCircuits, circuitsStatus, type CircuitsInfo } from '../circuits/build.js';
export { fetchOfficialCircuits } from '../circuits/fetch.js';
export { chooseProver, nativeProverPlan, proverStatus, type ProverChoice, type ProverStatus } from '../circuits/nativeProver.js';
