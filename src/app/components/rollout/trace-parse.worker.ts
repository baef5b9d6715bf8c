// Reads and parses one trace file off the page's thread (started per file by traceFiles.ts, then terminated).
import { parseTraceText } from './traceParse';

self.addEventListener('message', (ev: MessageEvent<File>) => {
  const f = ev.data;
  f.text().then(
    (text) => self.postMessage({ ok: true, loaded: parseTraceText(f.name, text) }),
    (e: unknown) => self.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) }),
  );
});
