/**
 * Named crash points for fault tests. Multi-step operations that touch the chain or the wallet
 * call `crashPoint(name)` between their steps; with `VC_CRASH_AT=name[,name...]` in the
 * environment the process kills itself there with SIGKILL (no cleanup, no exit handlers: exactly
 * what a kill -9 or a power cut leaves behind), and with `VC_KILL_NODE_AT=name` it kills the
 * embedded chain node instead and carries on (NODE_KILL_POINTS). Tests use them to show that the
 * next command recovers from each step; without those variables they do nothing.
 */
import { readFileSync } from 'node:fs';

/**
 * The steps of a publication (an issuance or a revocation) in the order they happen;
 * `nodes-saved` (the issuer's tree nodes saved in the chain's IdentityTreeStore) only when its
 * statuses are read there (Iden3OnchainSparseMerkleTreeProof2023).
 */
const PUBLICATION_STEPS = ['prepared', 'claim-added', 'trees-updated', 'nodes-saved', 'tx-sent', 'receipt'] as const;

/**
 * Every crash point of vc, in the order a publication passes them: the issuance's signing step,
 * each publication step of an issuance and of a revocation, the chain checkpoint's dump, and a
 * command's result: done but not yet written (`output:pending`, before `-o FILE` or stdout), then
 * written but not yet confirmed (`output:written`, before what was kept for a re-run, such as a
 * completed batch, is let go). The fault tests loop over this list, so a point added here is
 * killed at by them; `crashPoint` accepts no other name. (A revocation adds no claim, so
 * `revoke:claim-added` is never reached.)
 */
export const CRASH_POINTS = [
  'issue:signed',
  ...PUBLICATION_STEPS.map((step) => `issue:${step}` as const),
  ...PUBLICATION_STEPS.filter((step) => step !== 'claim-added').map((step) => `revoke:${step}` as const),
  'checkpoint:dumped',
  'output:pending',
  'output:written',
] as const;
export type CrashPointName = (typeof CRASH_POINTS)[number];

/**
 * The crash points of the W3C status lists (src/core/status), kept apart from the publication's
 * (test/core/pbq/recovery.test.ts kills at every one of those): an index assigned in the wallet
 * but its credential not yet signed, a list re-signed but not yet stored. Their own test
 * (test/core/status) kills at each.
 */
export const STATUS_CRASH_POINTS = ['status:assigned', 'status:list-signed'] as const;
export type StatusCrashPointName = (typeof STATUS_CRASH_POINTS)[number];

/**
 * The points where VC_KILL_NODE_AT can kill the embedded node: the receipt of a publication, and
 * `checkpoint:dumping`, vc's own save of the node's state (state.json) the moment it asks the node
 * for its state (anvil_dumpState), so the dump never arrives. That one is a node kill point only:
 * vc's own process killed around the dump is `checkpoint:dumped`, where the checkpoint is just as
 * unchanged.
 */
export const NODE_KILL_POINTS = ['issue:receipt', 'revoke:receipt', 'checkpoint:dumping'] as const;
export type NodeKillPointName = (typeof NODE_KILL_POINTS)[number];

function named(variable: string, name: string): boolean {
  const spec = process.env[variable];
  return spec !== undefined && spec !== '' && spec.split(',').some((entry) => entry.trim() === name);
}

/** Kills this process at `name` when VC_CRASH_AT names it. */
export function crashPoint(name: CrashPointName | StatusCrashPointName): void {
  if (named('VC_CRASH_AT', name)) process.kill(process.pid, 'SIGKILL');
}

/** Kills the embedded chain node (process `pid`) at `name` when VC_KILL_NODE_AT names it, and waits until it is gone. */
export async function killNodePoint(name: NodeKillPointName, pid: number | undefined): Promise<void> {
  if (!named('VC_KILL_NODE_AT', name) || pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
      // A zombie still answers signal 0 until reaped; its status line says so.
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))) return;
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
