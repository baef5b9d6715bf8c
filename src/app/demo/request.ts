// The Rollout page's default request lives in src/shared/demoRequest.ts (src/cli/demo-trace.ts reads it too,
// and no CLI imports from src/app/); re-exported here for the page.
export { DEMO_MODEL, DEMO_REQUEST, DEMO_TASK } from '../../shared/demoRequest';
