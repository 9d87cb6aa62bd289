// Lint keeps the layers of design.md: only src-main/electron imports 'electron', the
// renderer imports no Node module, and each src-main layer imports only layers above it.
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = [
  'fs',
  'fs/promises',
  'path',
  'os',
  'http',
  'https',
  'net',
  'tls',
  'crypto',
  'child_process',
  'stream',
  'zlib',
  'url',
  'util',
  'events',
  'worker_threads',
  'dgram',
  'dns',
  'readline',
  'buffer',
  'timers',
];

// Layer order (design.md): a folder may import only from folders listed before it.
const LAYERS = [
  'shared',
  // Pure code with no Node and no DOM (design.md): the renderer and every main layer import it;
  // it imports only shared/ (the layer rule) and nothing of Node (COMMON_RULES below).
  'common',
  'base',
  'protocol',
  'engine',
  'store',
  'sync',
  'tasks',
  'emulator',
  'service',
  // The desktop app opens the local door that `serve` opens (headless/local-door.ts), so
  // electron/ comes after headless/; headless/ never imports 'electron' (the rule below).
  'headless',
  'electron',
  'cli',
];
// Exceptions design.md allows explicitly: the engine persists through a narrow store
// interface that store/ implements, so store may import engine types; emulator shares
// protocol code only.
// Layers before a folder that it still may not import: the emulator imports only protocol/ and base/;
// the CLI goes through the contract (shared/: AppApi, its schemas) and the service, never around them.
const NOT_ALLOWED_ABOVE = {
  emulator: ['shared', 'engine', 'store', 'sync', 'tasks'],
  cli: ['engine', 'sync', 'protocol', 'tasks'],
};
// common/ runs in the renderer as well as in Node: no Node module, no package that needs one.
const NOT_IN_COMMON = ['electron', 'better-sqlite3', 'chokidar', 'ws', ...NODE_BUILTINS];
const layerRules = LAYERS.map((layer, i) => {
  const below = [...LAYERS.slice(i + 1), ...(NOT_ALLOWED_ABOVE[layer] ?? [])];
  const common = layer === 'common';
  return {
    files: [`src-main/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: common
            ? NOT_IN_COMMON.map((name) => ({ name, message: 'src-main/common imports nothing of Node (nor DOM).' }))
            : layer === 'electron'
              ? []
              : [{ name: 'electron', message: "Only src-main/electron/ may import 'electron'." }],
          patterns: [
            ...(below.length
              ? [
                  {
                    group: below.flatMap((l) =>
                      [1, 2, 3, 4, 5].flatMap((depth) => [
                        `${'../'.repeat(depth)}${l}`,
                        `${'../'.repeat(depth)}${l}/*`,
                      ]),
                    ),
                    message: `src-main/${layer} may not import layers below it, nor those design.md "Layers" keeps from it.`,
                  },
                ]
              : []),
            ...(common ? [{ group: ['node:*'], message: 'src-main/common imports nothing of Node (nor DOM).' }] : []),
          ],
        },
      ],
    },
  };
});

// The service's API areas are thin adapters over the use cases (service/use-cases/): they
// never reach the app core. The service's layer rule, with that one pattern more (a later
// block's options replace an earlier one's for the same rule).
const serviceLayer = layerRules[LAYERS.indexOf('service')].rules['no-restricted-imports'][1];
const apiAdapterRule = {
  files: ['src-main/service/api/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        ...serviceLayer,
        patterns: [
          ...serviceLayer.patterns,
          {
            group: ['../app-core', '**/service/app-core'],
            message:
              'src-main/service/api/ adapts the use cases (service/use-cases/); it does not import the app core.',
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', 'release/**', 'coverage/**', 'bench/results/**', '.tmp/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...layerRules,
  apiAdapterRule,
  {
    files: ['src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['electron', 'better-sqlite3', 'chokidar', ...NODE_BUILTINS].map((name) => ({
            name,
            message: 'The renderer imports no Node module; go through the bridge.',
          })),
          patterns: [
            { group: ['node:*'], message: 'The renderer imports no Node module; go through the bridge.' },
            {
              group: ['**/src-main/*/**', '!**/src-main/shared/**', '!**/src-main/common/**'],
              message: 'The renderer may import only src-main/shared and src-main/common.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src-main/**/*.ts'],
    ignores: ['src-main/electron/**'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'document', message: 'DOM only in src-renderer/.' },
        { name: 'window', message: 'DOM only in src-renderer/.' },
      ],
    },
  },
  {
    // common/ runs in the renderer and in Node: neither's globals (console and timers are both's).
    files: ['src-main/common/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['document', 'window', 'navigator', 'location', 'localStorage', 'WebSocket'].map((name) => ({
          name,
          message: 'src-main/common is pure: no DOM.',
        })),
        ...['process', 'Buffer', 'global', 'require', '__dirname', '__filename', 'setImmediate'].map((name) => ({
          name,
          message: 'src-main/common is pure: no Node.',
        })),
      ],
    },
  },
  {
    // A skipped test says why in the output: skip at run time with ctx.skip(reason), which
    // test/helpers/skip-reasons.ts lists at the end of every run.
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[object.name=/^(it|test|describe|suite)$/][property.name=/^(skip|skipIf|runIf)$/]',
          message: 'Skip at run time with ctx.skip(reason), so the reason shows in the output.',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
