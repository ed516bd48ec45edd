// The house rules of vc as lint rules (see ../shared/DESIGN.md and the README's design notes):
// only src/output.ts prints, only bin/vc.ts exits, only src/sd/library.ts loads the BBS+
// libraries, imports go down the layers, never up:
//   bin -> cli | http -> core -> adapters (iden3, sd, status, chain, circuits, workers) -> context -> store, config
// with errors, paths, faults, version, jsonInput, boundedFetch and eventLoop usable from anywhere, and no import circles.
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/** Import patterns (as written in relative imports) that name each layer. */
const LAYER = {
  cli: ['**/cli/*', '**/cli/**'],
  http: ['**/http/*', '**/http/**'],
  core: ['**/core/*', '**/core/**'],
  output: ['**/output.js'],
  // src/core/sd and src/core/status are core's own (the work behind their operations), not the
  // src/sd and src/status adapters.
  adapters: ['**/iden3/*', '**/iden3/**', '**/sd/*', '**/sd/**', '!**/core/sd/*', '!**/core/sd/**', '**/status/*', '**/status/**', '!**/core/status/*', '!**/core/status/**', '**/chain/*', '**/chain/**', '**/circuits/*', '**/circuits/**', '**/workers/*', '**/workers/**'],
};

/** One pattern per layer, so a layer's exception (the `!` lines) cannot lift another layer's ban. */
function forbid(message, ...layers) {
  return ['error', { patterns: [...layers.map((group) => ({ group, message })), MATTR_PATTERN] }];
}

/** The same boundaries for dynamic `import()` (vc loads heavy modules lazily), which no-restricted-imports does not see. */
function forbidDynamic(message, ...layers) {
  const names = layers.flat().filter((pattern) => !pattern.startsWith('!')).map((pattern) => pattern.replace(/^\*\*\//, '').replace(/\/\*+$/, '').replace(/\.js$/, '')).filter((name, i, all) => all.indexOf(name) === i);
  const pattern = `^(\\.\\.?\\/)+(${names.join('|')})(\\/|\\.js$)`;
  return ['error', { selector: `ImportExpression[source.value=/${pattern}/]`, message }];
}

/** Other copies of MATTR's WebAssembly have the broken random source: src/sd/library.ts is the one door. */
const MATTR_PATTERN = { group: ['@mattrglobal/*'], allowTypeImports: true, message: 'load the BBS+ libraries through src/sd/library.ts (bbsLibraries()): it fixes their random source' };

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'circuits/**', 'fixtures/**', 'coverage/**'] },
  {
    files: ['**/*.ts', '**/*.js'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-debugger': 'error',
      'no-var': 'error',
      'prefer-const': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['src/**/*.ts', 'bin/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': ['error', { object: 'process', property: 'exit', message: 'only bin/vc.ts exits the process; throw a VcError instead' }],
      'no-restricted-imports': ['error', { patterns: [MATTR_PATTERN] }],
    },
  },
  {
    // No import circles anywhere: our relative imports name the .js a .ts compiles to, which the
    // resolver maps back (extensionAlias), so the rule follows them into the sources.
    files: ['src/**/*.ts', 'bin/**/*.ts', 'bench/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json', '.node'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  { files: ['src/output.ts'], rules: { 'no-console': 'off' } },
  { files: ['bin/vc.ts'], rules: { 'no-restricted-properties': 'off' } },
  // The entry of the chain node's front, a process of its own (src/chain/node/front.ts).
  { files: ['src/chain/node/frontMain.ts'], rules: { 'no-restricted-properties': 'off' } },
  // The entry of vc serve's prover process (src/iden3/proverPool.ts).
  { files: ['src/iden3/proverProcess.ts'], rules: { 'no-restricted-properties': 'off' } },
  { files: ['src/sd/library.ts'], rules: { 'no-restricted-imports': 'off' } },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid('the CLI reaches the adapters through core operations', LAYER.adapters),
      'no-restricted-syntax': forbidDynamic('the CLI reaches the adapters through core operations', LAYER.adapters),
    },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid('HTTP routes reach the adapters through core operations, and never the CLI', LAYER.cli, LAYER.output, LAYER.adapters),
      'no-restricted-syntax': forbidDynamic('HTTP routes reach the adapters through core operations, and never the CLI', LAYER.cli, LAYER.output, LAYER.adapters),
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid('core never imports the CLI, HTTP or output layers', LAYER.cli, LAYER.http, LAYER.output),
      'no-restricted-syntax': forbidDynamic('core never imports the CLI, HTTP or output layers', LAYER.cli, LAYER.http, LAYER.output),
    },
  },
  {
    files: ['src/iden3/**/*.ts', 'src/sd/**/*.ts', 'src/status/**/*.ts', 'src/chain/**/*.ts', 'src/circuits/**/*.ts', 'src/workers/**/*.ts'],
    ignores: ['src/sd/library.ts'],
    rules: {
      'no-restricted-imports': forbid('adapters never import core, CLI, HTTP or output (Context lives in src/context.ts)', LAYER.core, LAYER.cli, LAYER.http, LAYER.output),
      'no-restricted-syntax': forbidDynamic('adapters never import core, CLI, HTTP or output (Context lives in src/context.ts)', LAYER.core, LAYER.cli, LAYER.http, LAYER.output),
    },
  },
  {
    files: ['src/store/**/*.ts', 'src/config/**/*.ts', 'src/context.ts', 'src/errors.ts', 'src/paths.ts', 'src/faults.ts', 'src/version.ts', 'src/jsonInput.ts', 'src/boundedFetch.ts', 'src/eventLoop.ts'],
    rules: {
      'no-restricted-imports': forbid('the lowest layers import nothing above them', LAYER.core, LAYER.cli, LAYER.http, LAYER.output, LAYER.adapters),
      'no-restricted-syntax': forbidDynamic('the lowest layers import nothing above them', LAYER.core, LAYER.cli, LAYER.http, LAYER.output, LAYER.adapters),
    },
  },
);
