import { defineConfig, type Plugin } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { ADMIN_PREFIX } from './src/lib/constants.ts';

// The Go web server (cmd/web) answers /api and the queue dashboard; in
// development Vite serves the app and hands those paths to it.
const backend = 'http://127.0.0.1:8080';

// twitter-text's ES build (the length counter's parseTweet) imports core-js 2
// polyfills of ES2015 built-ins, module by module, for browsers older than
// any the build targets; they were a third of the admin chunk. Each such
// import resolves to one empty module instead.
const withoutCoreJs: Plugin = {
  name: 'without-core-js',
  enforce: 'pre',
  resolveId(id) {
    return id.startsWith('core-js/modules/') ? '\0without-core-js' : null;
  },
  load(id) {
    return id === '\0without-core-js' ? 'export {};' : null;
  },
};

export default defineConfig({
  plugins: [react(), withoutCoreJs],
  server: {
    proxy: {
      '/api': backend,
      [`${ADMIN_PREFIX}/queues`]: backend,
    },
  },
  build: {
    outDir: 'dist',
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
