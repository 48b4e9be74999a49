import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const clockOnly = 'Time comes from the Clock (shared/clock.ts); inject it.';
const apiserverEntryOnly = "Outside cloud/apiserver/, import the apiserver's public entry (apiserver/index.js) or the client kit (cloud/client/).";
const clientKitOnly = 'A client of the API imports the client kit (cloud/client/), nothing of the apiserver.';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.kedge/**', 'bench/results/**', 'ui/**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'no-restricted-globals': ['error',
        { name: 'setTimeout', message: clockOnly },
        { name: 'setInterval', message: clockOnly }],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: clockOnly },
        { object: 'globalThis', property: 'setTimeout', message: clockOnly },
        { object: 'globalThis', property: 'setInterval', message: clockOnly }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['cloud/**/*.ts'],
    ignores: ['cloud/apiserver/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)apiserver/(?!index\\.js$)', message: apiserverEntryOnly }] }] },
  },
  {
    files: ['cloud/client/**/*.ts', 'cloud/controllers/**/*.ts', 'cloud/scheduler/**/*.ts', 'cloud/informer/**/*.ts', 'cloud/hub/**/*.ts', 'cloud/components/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)apiserver/', message: clientKitOnly }] }] },
  },
  {
    files: ['shared/clock.ts', 'ui/clock.ts'],
    rules: { 'no-restricted-globals': 'off', 'no-restricted-properties': 'off' },
  },
);
