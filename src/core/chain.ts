/**
 * The chain operations users reach (`vc chain status|down|reset|deploy`, and stopping the node a
 * server started): core's door to the chain layer, so the CLI and HTTP adapters never import it.
 */
export { chainDeploy, chainDown, chainReset, chainStatus } from '../chain/manage.js';
export type { ChainDeployResult, ChainDownResult, ChainResetResult, ChainStatusResult } from '../chain/manage.js';
export { stopLocalNodeIfStartedHere } from '../chain/client.js';
