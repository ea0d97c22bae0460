import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { ADMIN_PREFIX } from './src/lib/constants.ts';

// The Go web server (cmd/web) answers /api and the queue dashboard; in
// development Vite serves the app and hands those paths to it.
const backend = 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
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
