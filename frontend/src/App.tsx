import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { SWRConfig } from 'swr';
import { swrConfig } from './api/swrConfig';
import { PageFallback } from './components/PageFallback';
import { RequireToken } from './components/RequireToken';
// The admin area, lazily loaded: its sections (features/admin/sections.ts) load on demand in turn.
import { AdminArea } from './features/admin';
import { ADMIN_LOGIN_PATH, ADMIN_PREFIX } from './lib/constants';
import Home from './pages/Home';

// Only the home page is in the first bundle; every other page loads on demand,
// so the admin code never reaches a public visitor.
const About = lazy(() => import('./pages/About'));
const Backroom = lazy(() => import('./pages/Backroom'));
const AdminLogin = lazy(() => import('./pages/AdminLogin'));

export function App() {
  return (
    <SWRConfig value={swrConfig}>
      <BrowserRouter>
        <Suspense fallback={<PageFallback />}>
          <Routes>
            <Route path="/" element={<Home />} />
            <Route path="/about" element={<About />} />
            <Route path="/backroom" element={<Backroom />} />
            <Route path={ADMIN_LOGIN_PATH} element={<AdminLogin />} />
            <Route
              path={`${ADMIN_PREFIX}/*`}
              element={
                <RequireToken>
                  <AdminArea />
                </RequireToken>
              }
            />
            <Route path="/login" element={<Navigate to="/" replace />} />
            <Route path="/dashboard" element={<Navigate to="/" replace />} />
            <Route path="*" element={<Navigate to="/" replace />} />
          </Routes>
        </Suspense>
      </BrowserRouter>
    </SWRConfig>
  );
}
