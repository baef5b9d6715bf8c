// τ² v0.2.0 mock domain: users and their tasks. Small enough that clone() copies everything.

import { pyJsonDumps, pyStr, type PyDict } from '../../python';
import { sha256Hex } from '../../sha256';
import { checkStr, dictEntries, dictGet, isPyDict, pyEquals, validationError, valueError, type FieldError } from '../py';
import { ModelDump, Tau2Environment, strParam, type FunctionSpec, type Tau2DomainKit, type Tau2Store, type ToolSpec } from '../toolkit';

export interface MockTaskJson { task_id: string; title: string; description?: string | null; status: 'pending' | 'completed' }
export interface MockUserJson { user_id: string; name: string; tasks: string[] }
export interface MockDBJson { tasks: Record<string, MockTaskJson>; users: Record<string, MockUserJson> }

/** `status` is unvalidated after creation, as in τ² (no validate_assignment). */
export interface MockTask { task_id: string; title: string; description: string | null; status: unknown }
export interface MockUser { user_id: string; name: string; tasks: string[] }

export class MockDataError extends Error {}

const get = (o: unknown, k: string): unknown => (o instanceof Map ? o.get(k) : (o as Record<string, unknown>)[k]);
function need<T>(ok: boolean, v: T, path: string): T {
  if (!ok) throw new MockDataError(`${path}: invalid value`);
  return v;
}
const str = (v: unknown, p: string) => need(typeof v === 'string', v as string, p);
const entries = (v: unknown, p: string): [string, unknown][] => {
  need(isPyDict(v), v, p);
  return dictEntries(v as PyDict).map(([k, x]) => [String(k), x]);
};

export const dumpTask = (t: MockTask): PyDict => ({ task_id: t.task_id, title: t.title, description: t.description, status: t.status });
export const dumpMockUser = (u: MockUser): PyDict => ({ user_id: u.user_id, name: u.name, tasks: [...u.tasks] });

export class MockStore implements Tau2Store<MockStore> {
  constructor(public tasks: Map<string, MockTask>, public users: Map<string, MockUser>) {}

  static fromJson(data: MockDBJson | unknown): MockStore {
    need(isPyDict(data), data, 'db');
    for (const [k] of entries(data, 'db')) if (k !== 'tasks' && k !== 'users') throw new MockDataError(`db.${k}: extra field not permitted`);
    const tasks = new Map<string, MockTask>();
    for (const [k, v] of entries(get(data, 'tasks'), 'tasks')) {
      const d = get(v, 'description');
      const status = get(v, 'status');
      tasks.set(k, {
        task_id: str(get(v, 'task_id'), `tasks.${k}.task_id`), title: str(get(v, 'title'), `tasks.${k}.title`),
        description: d === undefined || d === null ? null : str(d, `tasks.${k}.description`),
        status: need(status === 'pending' || status === 'completed', status, `tasks.${k}.status`),
      });
    }
    const users = new Map<string, MockUser>();
    for (const [k, v] of entries(get(data, 'users'), 'users')) {
      const ts = get(v, 'tasks');
      users.set(k, {
        user_id: str(get(v, 'user_id'), `users.${k}.user_id`), name: str(get(v, 'name'), `users.${k}.name`),
        tasks: need(Array.isArray(ts), ts as unknown[], `users.${k}.tasks`).map((t, i) => str(t, `users.${k}.tasks[${i}]`)),
      });
    }
    return new MockStore(tasks, users);
  }

  clone(): MockStore {
    return new MockStore(
      new Map([...this.tasks].map(([k, t]) => [k, { ...t }])),
      new Map([...this.users].map(([k, u]) => [k, { ...u, tasks: [...u.tasks] }])),
    );
  }

  dump(): PyDict {
    return new Map<string, unknown>([
      ['tasks', new Map([...this.tasks].map(([k, t]) => [k, dumpTask(t)]))],
      ['users', new Map([...this.users].map(([k, u]) => [k, dumpMockUser(u)]))],
    ]);
  }

  hash(): string {
    return sha256Hex(pyJsonDumps(this.dump(), { sortKeys: true }));
  }
}

const STATUS_SCHEMA = { type: 'string', enum: ['pending', 'completed'], description: 'The new status.' };

export const MOCK_TOOLS: ToolSpec<MockStore>[] = [
  {
    name: 'create_task',
    kind: 'write',
    description: 'Create a new pending task for a user and return it.',
    params: [
      strParam('user_id', 'The id of the user the task belongs to.'), strParam('title', 'The task title.'),
      strParam('description', 'An optional description of the task.', false),
    ],
    run: (db, a) => {
      const user = dictGet(db.users, a.user_id);
      if (!user) throw valueError(`User ${pyStr(a.user_id)} not found`);
      const taskId = `task_${db.tasks.size + 1}`;
      const errors: FieldError[] = [];
      checkStr(errors, 'title', a.title);
      checkStr(errors, 'description', a.description, true);
      if (errors.length) throw validationError('Task', errors);
      const task: MockTask = { task_id: taskId, title: a.title as string, description: (a.description as string | null) ?? null, status: 'pending' };
      db.tasks.set(taskId, task);
      user.tasks.push(taskId);
      return new ModelDump(dumpTask(task));
    },
  },
  {
    name: 'get_users',
    kind: 'read',
    description: 'List all users with their task ids.',
    params: [],
    run: (db) => new ModelDump([...db.users.values()].map(dumpMockUser)),
  },
  {
    name: 'update_task_status',
    kind: 'write',
    description: 'Set the status of a task and return the task.',
    params: [strParam('task_id', 'The id of the task.'), { name: 'status', required: true, schema: STATUS_SCHEMA }],
    run: (db, a) => {
      const task = dictGet(db.tasks, a.task_id);
      if (!task) throw valueError(`Task ${pyStr(a.task_id)} not found`);
      task.status = a.status;
      return new ModelDump(dumpTask(task));
    },
  },
  {
    name: 'transfer_to_human_agents',
    kind: 'generic',
    description: 'Hand the conversation to a human agent with a summary of the issue. Use only when the user asks for a human or the request cannot be handled with the policy and tools.',
    params: [strParam('summary', 'A summary of the user\'s issue.')],
    run: () => 'Transfer successful',
  },
];

export const MOCK_FUNCTIONS: FunctionSpec<MockStore>[] = [
  {
    name: 'assert_number_of_tasks',
    params: [strParam('user_id', ''), { name: 'expected_number', required: true, schema: { type: 'integer' } }],
    run: (db, a) => {
      const user = dictGet(db.users, a.user_id);
      if (!user) throw valueError(`User ${pyStr(a.user_id)} not found`);
      return pyEquals(user.tasks.length, a.expected_number);
    },
  },
  {
    name: 'assert_task_status',
    params: [strParam('task_id', ''), { name: 'expected_status', required: true, schema: STATUS_SCHEMA }],
    run: (db, a) => {
      const task = dictGet(db.tasks, a.task_id);
      if (!task) throw valueError(`Task ${pyStr(a.task_id)} not found`);
      return pyEquals(task.status, a.expected_status);
    },
  },
];

export const MOCK_KIT: Tau2DomainKit<MockStore> = {
  domain: 'mock',
  className: 'MockTools',
  tools: MOCK_TOOLS,
  functions: MOCK_FUNCTIONS,
  fromDump: (d) => MockStore.fromJson(d),
};

export type MockEnv = Tau2Environment<MockStore>;

export function createMockEnv(db: MockDBJson | MockStore, opts: { policy?: string; errorStyle?: 'tau2' | 'envace' } = {}): MockEnv {
  const store = db instanceof MockStore ? db.clone() : MockStore.fromJson(db);
  return new Tau2Environment(MOCK_KIT, store, opts.policy ?? '', { errorStyle: opts.errorStyle });
}
