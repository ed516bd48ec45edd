/**
 * Readiness of selective disclosure in this process: loads the BBS+ libraries and runs their
 * randomness self-test (src/bbs/library.ts). `vc serve` calls it before it accepts requests, so a
 * broken random source stops the server at start instead of failing requests later.
 */
import { bbsLibraries } from '../../bbs/library.js';

/** Loads the BBS+ libraries and proves their randomness; rejects with InternalError otherwise. */
export async function prepareSelectiveDisclosure(): Promise<void> {
  await bbsLibraries();
}
