import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles.css';

// For the first-paint budget in e2e/ux.spec.ts: when the app's code starts (the demo trace marks its paint).
performance.mark('envace-app-start');
createRoot(document.getElementById('root')!).render(<StrictMode><App /></StrictMode>);
