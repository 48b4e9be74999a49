import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const clockOnly = 'Time comes from the Clock (shared/clock.ts); inject it.';

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
    files: ['shared/clock.ts', 'ui/clock.ts'],
    rules: { 'no-restricted-globals': 'off', 'no-restricted-properties': 'off' },
  },
);
