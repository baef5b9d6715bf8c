// navigator.storage.persist() is requested once per page load, and its answer is put in words (issue 21).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { persistText, requestPersistentStorage, resetPersistRequest } from '../../src/app/storage';

afterEach(() => { vi.unstubAllGlobals(); resetPersistRequest(); });

describe('persistent storage request', () => {
  it('asks once; granted, refused, already persistent, missing or throwing', async () => {
    const persist = vi.fn(async () => true);
    vi.stubGlobal('navigator', { storage: { persist, persisted: async () => false } });
    expect(await requestPersistentStorage()).toBe('persisted');
    expect(await requestPersistentStorage()).toBe('persisted');
    expect(persist).toHaveBeenCalledTimes(1);

    resetPersistRequest();
    vi.stubGlobal('navigator', { storage: { persist: async () => false, persisted: async () => false } });
    expect(await requestPersistentStorage()).toBe('best-effort');

    resetPersistRequest();
    const never = vi.fn(async () => true);
    vi.stubGlobal('navigator', { storage: { persist: never, persisted: async () => true } });
    expect(await requestPersistentStorage()).toBe('persisted');
    expect(never).not.toHaveBeenCalled();

    resetPersistRequest();
    vi.stubGlobal('navigator', {});
    expect(await requestPersistentStorage()).toBe('unavailable');

    resetPersistRequest();
    vi.stubGlobal('navigator', { storage: { persist: async () => { throw new Error('denied'); } } });
    expect(await requestPersistentStorage()).toBe('unavailable');
  });

  it('says what each answer means for checkpoints', () => {
    expect(persistText('persisted')).toMatch(/^storage: persistent/);
    expect(persistText('best-effort')).toMatch(/may evict checkpoints/);
    expect(persistText('unavailable')).toMatch(/best-effort/);
  });
});
