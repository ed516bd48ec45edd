#!/usr/bin/env node
/**
 * Entry of the `vc` executable: runs the command line (src/cli/main.ts) on the process' arguments,
 * streams and environment, and exits with its code. This is the only place that exits the process.
 */
import { runCli } from '../src/cli/main.js';

// A time written without a time zone offset is UTC (VC Data Model 2.0 section 5.8), also inside
// the libraries that read credential dates (vc.js reads one as this machine's local time): the
// process, its worker threads included, runs in UTC, whatever the machine's zone. vc shows no
// local time anywhere.
process.env.TZ = 'UTC';
const code = await runCli(process.argv.slice(2));
// Give stdout a chance to flush when piped, then exit even if a library left handles open.
process.stdout.write('', () => process.exit(code));
