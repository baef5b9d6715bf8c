// BFCL's MessageAPI (func_source_code/message_api.py). Message ids come from a per-instance
// CPython-compatible random.Random(200191), so replaying the same calls yields the same ids.

import { BfclPyError, registerBackend, type BfclBackend } from '../backend';
import { PyRandom } from '../pyrandom';
import {
  bindMethod, asPyMap, asPyList,
  pyContains, pyDeepCopy, pyEquals, pyIterate, pyStr, pyTruthy, pyTypeName, PyFloat, toMapDeep, type PyParam,
} from '../../python';

const CLASS = 'MessageAPI';

const METHODS: Record<string, PyParam[]> = {
  list_users: [],
  get_user_id: [{ name: 'user' }],
  message_login: [{ name: 'user_id' }],
  message_get_login_status: [],
  send_message: [{ name: 'receiver_id' }, { name: 'message' }],
  delete_message: [{ name: 'receiver_id' }],
  view_messages_sent: [],
  add_contact: [{ name: 'user_name' }],
  search_messages: [{ name: 'keyword' }],
  get_message_stats: [],
};

function defaultState(): Map<string, unknown> {
  return new Map<string, unknown>([
    ['generated_ids', new Set<unknown>()],
    ['user_count', 4],
    ['user_map', new Map([['Alice', 'USR001'], ['Bob', 'USR002'], ['Catherine', 'USR003'], ['Daniel', 'USR004']])],
    ['inbox', [
      new Map([['USR002', 'My name is Alice. I want to connect.']]),
      new Map([['USR003', 'Could you upload the file?']]),
      new Map([['USR004', 'Could you upload the file?']]),
    ]],
    ['message_count', 3],
    ['current_user', null],
  ]);
}

/** `receiver, content = list(message.items())[0]` */
function firstItem(message: unknown): [unknown, unknown] {
  const m = asPyMap(message, 'items');
  const first = m.entries().next();
  if (first.done) throw new BfclPyError('IndexError', 'list index out of range');
  return first.value;
}

function lower(v: unknown): string {
  if (typeof v !== 'string') throw new BfclPyError('AttributeError', `'${pyTypeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

export class MessageAPI implements BfclBackend {
  readonly className = CLASS;
  private random = new PyRandom(200191);
  generatedIds: unknown = new Set<unknown>();
  userCount: unknown = 4;
  userMap: unknown = new Map();
  inbox: unknown = [];
  messageCount: unknown = 3;
  currentUser: unknown = null;

  loadScenario(config: unknown, _longContext: boolean): void {
    const scenario = (toMapDeep(config ?? new Map()) as Map<unknown, unknown>);
    const d = defaultState();
    const get = (k: string): unknown => (scenario.has(k) ? scenario.get(k) : d.get(k));
    const seed = scenario.has('random_seed') ? scenario.get('random_seed') : 200191;
    this.random = new PyRandom(typeof seed === 'number' ? seed : Number(seed));
    // A configured `generated_ids` arrives as a JSON list and stays one, as in BFCL.
    this.generatedIds = get('generated_ids');
    this.userCount = get('user_count');
    this.userMap = get('user_map');
    this.inbox = get('inbox');
    this.messageCount = get('message_count');
    this.currentUser = get('current_user');
  }

  methods(): string[] { return Object.keys(METHODS); }

  invoke(method: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    const a = bindMethod(CLASS, METHODS, method, args, kwargs);
    switch (method) {
      case 'list_users': return new Map([['user_list', [...asPyMap(this.userMap, 'keys').keys()]]]);
      case 'get_user_id': return this.getUserId(a[0]);
      case 'message_login': return this.login(a[0]);
      case 'message_get_login_status': return new Map([['login_status', pyTruthy(this.currentUser)]]);
      case 'send_message': return this.send(a[0], a[1]);
      case 'delete_message': return this.delete(a[0]);
      case 'view_messages_sent': return this.viewSent();
      case 'add_contact': return this.addContact(a[0]);
      case 'search_messages': return this.search(a[0]);
      case 'get_message_stats': return this.stats();
    }
    throw new BfclPyError('AttributeError', `'${CLASS}' object has no attribute '${method}'`);
  }

  private values(): unknown[] { return [...asPyMap(this.userMap, 'values').values()]; }

  private getUserId(user: unknown): unknown {
    if (!pyContains(this.userMap, user)) return new Map([['error', `User '${pyStr(user)}' not found in the workspace.`]]);
    const m = asPyMap(this.userMap, 'get');
    for (const [k, v] of m) if (pyEquals(k, user)) return new Map([['user_id', v]]);
    return new Map([['user_id', null]]);
  }

  private login(userId: unknown): unknown {
    if (!this.values().some((v) => pyEquals(v, userId))) {
      return new Map<string, unknown>([['login_status', false], ['message', `User ID '${pyStr(userId)}' not found.`]]);
    }
    this.currentUser = userId;
    return new Map<string, unknown>([['login_status', true], ['message', `User '${pyStr(userId)}' logged in successfully.`]]);
  }

  private generateId(): unknown {
    let id = this.random.randint(10000, 99999);
    while (pyContains(this.generatedIds, id)) id = this.random.randint(10000, 99999);
    if (!(this.generatedIds instanceof Set)) throw new BfclPyError('AttributeError', `'${pyTypeName(this.generatedIds)}' object has no attribute 'add'`);
    this.generatedIds.add(id);
    return new Map([['new_id', id]]);
  }

  private send(receiverId: unknown, message: unknown): unknown {
    if (!pyTruthy(this.currentUser)) return new Map([['error', 'No user is currently logged in.']]);
    if (!this.values().some((v) => pyEquals(v, receiverId))) return new Map([['error', `Receiver ID '${pyStr(receiverId)}' not found.`]]);
    const messageId = this.generateId();
    asPyList(this.inbox, 'append').push(new Map([[receiverId, message]]));
    this.messageCount = addOne(this.messageCount);
    return new Map<string, unknown>([
      ['sent_status', true],
      ['message_id', messageId],
      ['message', `Message sent to '${pyStr(receiverId)}' successfully.`],
    ]);
  }

  private delete(receiverId: unknown): unknown {
    if (!pyTruthy(this.currentUser)) return new Map([['error', 'No user is currently logged in.']]);
    const inbox = asPyList(this.inbox, 'remove');
    for (const message of [...inbox].reverse()) {
      const [receiver] = firstItem(message);
      if (pyEquals(receiver, receiverId)) {
        // list.remove drops the first equal message, which may be an earlier duplicate.
        const idx = inbox.findIndex((m) => pyEquals(m, message));
        inbox.splice(idx, 1);
        return new Map<string, unknown>([
          ['deleted_status', true],
          ['receiver_id', receiver],
          ['message', `Receiver ${pyStr(receiverId)}'s latest message deleted successfully.`],
        ]);
      }
    }
    return new Map([['error', `Receiver ID ${pyStr(receiverId)} not found.`]]);
  }

  private viewSent(): unknown {
    if (!pyTruthy(this.currentUser)) return new Map([['error', 'No user is currently logged in.']]);
    const sent = new Map<unknown, unknown[]>();
    for (const message of pyIterate(this.inbox)) {
      const [receiver, content] = firstItem(message);
      let key: unknown = receiver;
      for (const k of sent.keys()) if (pyEquals(k, receiver)) key = k;
      const list = sent.get(key);
      if (list) list.push(content);
      else sent.set(key, [content]);
    }
    return new Map([['messages', sent]]);
  }

  private addContact(userName: unknown): unknown {
    if (pyContains(this.userMap, userName)) return new Map([['error', `User name '${pyStr(userName)}' already exists.`]]);
    this.userCount = addOne(this.userCount);
    const userId = `USR${pyStr(this.userCount).padStart(3, '0')}`;
    if (this.values().some((v) => pyEquals(v, userId))) return new Map([['error', `User ID '${userId}' already exists.`]]);
    asPyMap(this.userMap, '__setitem__').set(userName, userId);
    return new Map<string, unknown>([
      ['added_status', true],
      ['user_id', userId],
      ['message', `Contact '${pyStr(userName)}' added successfully.`],
    ]);
  }

  private search(keyword: unknown): unknown {
    if (!pyTruthy(this.currentUser)) return new Map([['error', 'No user is currently logged in.']]);
    const kw = lower(keyword);
    const results: unknown[] = [];
    for (const message of pyIterate(this.inbox)) {
      const [receiver, content] = firstItem(message);
      if (lower(content).includes(kw)) results.push(new Map([['receiver_id', receiver], ['message', content]]));
    }
    return new Map([['results', results]]);
  }

  private stats(): unknown {
    if (!pyTruthy(this.currentUser)) return new Map([['error', 'No user is currently logged in.']]);
    let received = 0;
    const contacts: unknown[] = [];
    for (const message of pyIterate(this.inbox)) {
      const [receiver] = firstItem(message);
      received++;
      if (!contacts.some((c) => pyEquals(c, receiver))) contacts.push(receiver);
    }
    return new Map([['stats', new Map([['received_count', received], ['total_contacts', contacts.length]])]]);
  }

  state(): unknown {
    const ids = this.generatedIds instanceof Set
      ? [...this.generatedIds].sort((x, y) => (Number(x) < Number(y) ? -1 : Number(x) > Number(y) ? 1 : 0))
      : this.generatedIds;
    return new Map<string, unknown>([
      ['generated_ids', ids],
      ['user_count', this.userCount],
      ['user_map', this.userMap],
      ['inbox', this.inbox],
      ['message_count', this.messageCount],
      ['current_user', this.currentUser],
    ]);
  }

  /** Python-equality view for the checker (generated_ids stays a set). */
  compareState(): Map<string, unknown> {
    return new Map<string, unknown>([
      ['generated_ids', this.generatedIds],
      ['user_count', this.userCount],
      ['user_map', this.userMap],
      ['inbox', this.inbox],
      ['message_count', this.messageCount],
      ['current_user', this.currentUser],
    ]);
  }

  clone(): MessageAPI {
    const c = new MessageAPI();
    const memo = new Map<unknown, unknown>();
    c.random = this.random.clone();
    c.generatedIds = pyDeepCopy(this.generatedIds, memo);
    c.userCount = this.userCount;
    c.userMap = pyDeepCopy(this.userMap, memo);
    c.inbox = pyDeepCopy(this.inbox, memo);
    c.messageCount = this.messageCount;
    c.currentUser = pyDeepCopy(this.currentUser, memo);
    return c;
  }
}

/** `x += 1` on an attribute loaded from config (an int unless the config says otherwise). */
function addOne(v: unknown): unknown {
  if (typeof v === 'number') return v + 1;
  if (typeof v === 'boolean') return Number(v) + 1;
  if (v instanceof PyFloat) return new PyFloat(v.value + 1);
  throw new BfclPyError('TypeError', `can only concatenate ${pyTypeName(v)} (not "int") to ${pyTypeName(v)}`);
}

registerBackend(CLASS, () => new MessageAPI());
