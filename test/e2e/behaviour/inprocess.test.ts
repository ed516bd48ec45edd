/**
 * The shared behavioural suite against the core operations called in this process.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { tempDir, templateHome } from '../../helpers.js';
import type { Driver } from './driver.js';
import { createInProcessDriver } from './inProcessDriver.js';
import { describeProofByQueryBehaviours } from './pbq.behaviour.js';
import { describeSelectiveDisclosureBehaviours } from './sd.behaviour.js';
import { behaviourVariables } from './setup.js';

const tmp = tempDir('vc-behaviour-inprocess-');
let driver: Driver;

beforeAll(() => {
  driver = createInProcessDriver(behaviourVariables(), templateHome(path.join(tmp.dir, 'home')));
});
afterAll(async () => {
  await driver?.close();
  tmp.cleanup();
});

describe('behaviours in process', () => {
  describeSelectiveDisclosureBehaviours(() => driver, () => tmp.dir);
  describeProofByQueryBehaviours(() => driver);
});
