/**
 * The shared behavioural suite through the `vc` binary: every call is a command of the table.
 */
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe } from 'vitest';
import { tempDir, templateHome } from '../../helpers.js';
import type { Driver } from './driver.js';
import { createCliDriver } from './cliDriver.js';
import { describeProofByQueryBehaviours } from './pbq.behaviour.js';
import { describeSelectiveDisclosureBehaviours } from './sd.behaviour.js';
import { behaviourVariables } from './setup.js';

const tmp = tempDir('vc-behaviour-cli-');
let driver: Driver;

beforeAll(() => {
  const scratch = path.join(tmp.dir, 'files');
  mkdirSync(scratch);
  driver = createCliDriver(behaviourVariables(), templateHome(path.join(tmp.dir, 'home')), scratch);
});
afterAll(async () => {
  await driver?.close();
  tmp.cleanup();
});

describe('behaviours through the vc binary', () => {
  describeSelectiveDisclosureBehaviours(() => driver, () => tmp.dir);
  describeProofByQueryBehaviours(() => driver);
});
