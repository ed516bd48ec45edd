// Writes the generated operation table into README.md (run by `npm run docs` after a build).
import { readFileSync, writeFileSync } from 'node:fs';
import { withOperationTable } from '../dist/src/cli/reference.js';

const readme = readFileSync('README.md', 'utf8');
const updated = withOperationTable(readme);
if (updated !== readme) writeFileSync('README.md', updated);
process.stdout.write(updated === readme ? 'README.md: the operation table is up to date\n' : 'README.md: operation table updated\n');
