// BFCL's TwitterAPI (func_source_code/posting_api.py). Tweet ids are int dict keys (converted from the
// config's string keys at load time); comments added later use the tweet_id as given.

import { BfclPyError, registerBackend, type BfclBackend } from '../backend';
import {
  bindMethod, asPyMap, asPyList,
  pyContains, pyDeepCopy, pyDictFindKey, pyEquals, pyIterate, pyStr, pyTruthy, pyTypeName, PyFloat,
  toMapDeep, type PyParam,
} from '../../python';

const CLASS = 'TwitterAPI';

// post_tweet's `tags=[]` / `mentions=[]` defaults are evaluated once per Python process and shared
// by every tweet posted without them; mention() then extends that shared list in place.
export const POST_TWEET_DEFAULT_TAGS: unknown[] = [];
export const POST_TWEET_DEFAULT_MENTIONS: unknown[] = [];

const METHODS: Record<string, PyParam[]> = {
  authenticate_twitter: [{ name: 'username' }, { name: 'password' }],
  posting_get_login_status: [],
  post_tweet: [
    { name: 'content' },
    { name: 'tags', hasDefault: true, default: POST_TWEET_DEFAULT_TAGS },
    { name: 'mentions', hasDefault: true, default: POST_TWEET_DEFAULT_MENTIONS },
  ],
  retweet: [{ name: 'tweet_id' }],
  comment: [{ name: 'tweet_id' }, { name: 'comment_content' }],
  mention: [{ name: 'tweet_id' }, { name: 'mentioned_usernames' }],
  follow_user: [{ name: 'username_to_follow' }],
  list_all_following: [],
  unfollow_user: [{ name: 'username_to_unfollow' }],
  get_tweet: [{ name: 'tweet_id' }],
  get_user_tweets: [{ name: 'username' }],
  search_tweets: [{ name: 'keyword' }],
  get_tweet_comments: [{ name: 'tweet_id' }],
  get_user_stats: [{ name: 'username' }],
};

const ATTRS = ['username', 'password', 'authenticated', 'tweets', 'comments', 'retweets', 'following_list', 'tweet_counter'] as const;
type Attr = typeof ATTRS[number];

function defaults(): Record<Attr, unknown> {
  return {
    username: 'john', password: 'john123', authenticated: false, tweets: new Map(), comments: new Map(),
    retweets: new Map(), following_list: ['alice', 'bob'], tweet_counter: 0,
  };
}

/** int(k) for a dict key read from JSON. */
function pyInt(k: unknown): unknown {
  if (typeof k === 'number' && Number.isInteger(k)) return k;
  if (typeof k === 'boolean') return Number(k);
  if (k instanceof PyFloat) return Math.trunc(k.value);
  if (typeof k === 'string') {
    const t = k.trim().replace(/_(?=\d)/g, '');
    if (/^[+-]?\d+$/.test(t)) return Number(t);
    throw new BfclPyError('ValueError', `invalid literal for int() with base 10: ${JSON.stringify(k).replace(/^"|"$/g, "'")}`);
  }
  throw new BfclPyError('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(k)}'`);
}

function subscript(d: unknown, key: string): unknown {
  const m = asPyMap(d, '__getitem__');
  const f = pyDictFindKey(m, key);
  if (!f.found) throw new BfclPyError('KeyError', `'${key}'`);
  return m.get(f.key);
}

function lower(v: unknown): string {
  if (typeof v !== 'string') throw new BfclPyError('AttributeError', `'${pyTypeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

export class TwitterAPI implements BfclBackend {
  readonly className = CLASS;
  private s: Record<Attr, unknown> = defaults();

  loadScenario(config: unknown, _longContext: boolean): void {
    const scenario = toMapDeep(config ?? new Map()) as Map<unknown, unknown>;
    const d = defaults();
    const s = {} as Record<Attr, unknown>;
    for (const a of ATTRS) s[a] = scenario.has(a) ? scenario.get(a) : d[a];
    s.tweets = new Map([...asPyMap(s.tweets, 'items')].map(([k, v]) => [pyInt(k), v]));
    this.s = s;
  }

  methods(): string[] { return Object.keys(METHODS); }

  invoke(method: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    const a = bindMethod(CLASS, METHODS, method, args, kwargs);
    const s = this.s;
    const notAuth = (what: string) => new Map([['error', `User not authenticated. Please authenticate before ${what}.`]]);
    const tweets = () => asPyMap(s.tweets, 'items');
    const notFound = (id: unknown) => new Map([['error', `Tweet with ID ${pyStr(id)} not found.`]]);
    switch (method) {
      case 'authenticate_twitter':
        if (pyEquals(a[0], s.username) && pyEquals(a[1], s.password)) {
          s.authenticated = true;
          return new Map([['authentication_status', true]]);
        }
        return new Map([['authentication_status', false]]);
      case 'posting_get_login_status':
        return new Map([['login_status', pyTruthy(s.authenticated)]]);
      case 'post_tweet': {
        if (!pyTruthy(s.authenticated)) return notAuth('posting');
        const tweet = new Map<string, unknown>([
          ['id', s.tweet_counter], ['username', s.username], ['content', a[0]], ['tags', a[1]], ['mentions', a[2]],
        ]);
        const key = pyDictFindKey(tweets(), s.tweet_counter);
        tweets().set(key.key, tweet);
        s.tweet_counter = addOne(s.tweet_counter);
        return tweet;
      }
      case 'retweet': {
        if (!pyTruthy(s.authenticated)) return notAuth('retweeting');
        if (!pyContains(tweets(), a[0])) return notFound(a[0]);
        const rt = asPyMap(s.retweets, '__contains__');
        let k = pyDictFindKey(rt, s.username);
        if (!k.found) { rt.set(s.username, []); k = pyDictFindKey(rt, s.username); }
        const list = rt.get(k.key);
        if (pyContains(list, a[0])) return new Map([['retweet_status', 'Already retweeted']]);
        asPyList(list, 'append').push(a[0]);
        return new Map([['retweet_status', 'Successfully retweeted']]);
      }
      case 'comment': {
        if (!pyTruthy(s.authenticated)) return notAuth('commenting');
        if (!pyContains(tweets(), a[0])) return notFound(a[0]);
        const cm = asPyMap(s.comments, '__contains__');
        let k = pyDictFindKey(cm, a[0]);
        if (!k.found) { cm.set(a[0], []); k = pyDictFindKey(cm, a[0]); }
        asPyList(cm.get(k.key), 'append').push(new Map([['username', s.username], ['content', a[1]]]));
        return new Map([['comment_status', 'Comment added successfully']]);
      }
      case 'mention': {
        const k = pyDictFindKey(tweets(), a[0]);
        if (!k.found) return notFound(a[0]);
        const items = pyIterate(a[1]);
        asPyList(subscript(tweets().get(k.key), 'mentions'), 'extend').push(...items);
        return new Map([['mention_status', 'Users mentioned successfully']]);
      }
      case 'follow_user':
        if (!pyTruthy(s.authenticated)) return notAuth('following');
        if (pyContains(s.following_list, a[0])) return new Map([['follow_status', false]]);
        asPyList(s.following_list, 'append').push(a[0]);
        return new Map([['follow_status', true]]);
      case 'list_all_following':
        if (!pyTruthy(s.authenticated)) return notAuth('listing following');
        return new Map([['following_list', s.following_list]]);
      case 'unfollow_user': {
        if (!pyTruthy(s.authenticated)) return notAuth('unfollowing');
        if (!pyContains(s.following_list, a[0])) return new Map([['unfollow_status', false]]);
        const list = asPyList(s.following_list, 'remove');
        list.splice(list.findIndex((x) => pyEquals(x, a[0])), 1);
        return new Map([['unfollow_status', true]]);
      }
      case 'get_tweet': {
        const k = pyDictFindKey(tweets(), a[0]);
        if (!k.found) return notFound(a[0]);
        return tweets().get(k.key);
      }
      case 'get_user_tweets':
        return [...tweets().values()].filter((t) => pyEquals(subscript(t, 'username'), a[0]));
      case 'search_tweets': {
        // The comprehension only evaluates keyword.lower() once there is a tweet to test.
        return [...tweets().values()].filter((t) => lower(subscript(t, 'content')).includes(lower(a[0]))
          || pyIterate(subscript(t, 'tags')).map(lower).includes(lower(a[0])));
      }
      case 'get_tweet_comments': {
        if (!pyContains(tweets(), a[0])) return notFound(a[0]);
        const cm = asPyMap(s.comments, 'get');
        const k = pyDictFindKey(cm, a[0]);
        return k.found ? cm.get(k.key) : [];
      }
      case 'get_user_stats': {
        const tweetCount = [...tweets().values()].filter((t) => pyEquals(subscript(t, 'username'), a[0])).length;
        const followingCount = pyEquals(a[0], s.username) ? pyLen(s.following_list) : 0;
        const rt = asPyMap(s.retweets, 'get');
        const k = pyDictFindKey(rt, a[0]);
        const retweetCount = k.found ? pyLen(rt.get(k.key)) : 0;
        return new Map([['tweet_count', tweetCount], ['following_count', followingCount], ['retweet_count', retweetCount]]);
      }
    }
    throw new BfclPyError('AttributeError', `'${CLASS}' object has no attribute '${method}'`);
  }

  state(): unknown {
    return new Map<string, unknown>(ATTRS.map((a) => [a, this.s[a]]));
  }

  clone(): TwitterAPI {
    const c = new TwitterAPI();
    // deepcopy: shared lists (e.g. the mutable default) stay shared within the copy only.
    const memo = new Map<unknown, unknown>();
    const s = {} as Record<Attr, unknown>;
    for (const a of ATTRS) s[a] = pyDeepCopy(this.s[a], memo);
    c.s = s;
    return c;
  }
}

function pyLen(v: unknown): number {
  if (Array.isArray(v) || typeof v === 'string') return typeof v === 'string' ? [...v].length : v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  throw new BfclPyError('TypeError', `object of type '${pyTypeName(v)}' has no len()`);
}

function addOne(v: unknown): unknown {
  if (typeof v === 'number') return v + 1;
  if (typeof v === 'boolean') return Number(v) + 1;
  if (v instanceof PyFloat) return new PyFloat(v.value + 1);
  throw new BfclPyError('TypeError', `can only concatenate ${pyTypeName(v)} (not "int") to ${pyTypeName(v)}`);
}

registerBackend(CLASS, () => new TwitterAPI());
