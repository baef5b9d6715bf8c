// The page's URL schema lives in src/shared/urlState.ts (npm run fuzz parses links with it too, and no CLI
// imports from src/app/); re-exported here for the page.
export * from '../shared/urlState';
