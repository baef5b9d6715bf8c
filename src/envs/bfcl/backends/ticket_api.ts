// BFCL's TicketAPI (support-ticket queue) ported to TypeScript with the same results and state.

import { pyStr } from '../../python';
import { registerBackend } from '../backend';
import {
  MethodSpec, PyBackend, PyMap, attributeError, cfg, configMap, getItem, isPyDict, opt, pyAdd, pyCmp, pyEq,
  pyTruthy, pyTypeName, req, setItem, strMethod, toPy, typeError,
} from '../pyops';

export class TicketAPI extends PyBackend<TicketAPI> {
  readonly className = 'TicketAPI';
  ticket_queue: unknown = [];
  ticket_counter: unknown = 1;
  current_user: unknown = null;

  loadScenario(config: unknown): void {
    const s = configMap(config);
    this.ticket_queue = cfg(s, 'ticket_queue', []);
    this.ticket_counter = cfg(s, 'ticket_counter', 1);
    this.current_user = cfg(s, 'current_user', null);
  }

  state(): unknown {
    return toPy({ ticket_queue: this.ticket_queue, ticket_counter: this.ticket_counter, current_user: this.current_user });
  }

  clone(): TicketAPI {
    const c = new TicketAPI();
    c.ticket_queue = toPy(this.ticket_queue);
    c.ticket_counter = this.ticket_counter;
    c.current_user = this.current_user;
    return c;
  }

  findTicket(ticketId: unknown): PyMap | null {
    for (const ticket of this.queue()) {
      if (pyEq(getItem(ticket, 'id'), ticketId)) return ticket as PyMap;
    }
    return null;
  }

  queue(): unknown[] {
    if (!Array.isArray(this.ticket_queue)) throw attributeError(this.ticket_queue, 'append');
    return this.ticket_queue;
  }

  protected table(): Record<string, MethodSpec<TicketAPI>> {
    return METHODS;
  }
}

const notFound = (id: unknown): PyMap => new Map([['error', `Ticket with ID ${pyStr(id)} not found.`]]);

const METHODS: Record<string, MethodSpec<TicketAPI>> = {
  create_ticket: {
    params: [req('title'), opt('description', ''), opt('priority', 1)],
    fn(this: TicketAPI, title: unknown, description: unknown, priority: unknown) {
      if (!pyTruthy(this.current_user)) return new Map([['error', 'User not authenticated. Please log in to create a ticket.']]);
      if (pyCmp('<', priority, 1) || pyCmp('>', priority, 5)) {
        return new Map([['error', 'Invalid priority. Priority must be between 1 and 5.']]);
      }
      const ticket: PyMap = new Map<string, unknown>([
        ['id', this.ticket_counter], ['title', title], ['description', description], ['status', 'Open'],
        ['priority', priority], ['created_by', this.current_user],
      ]);
      this.queue().push(ticket);
      this.ticket_counter = pyAdd(this.ticket_counter, 1);
      return ticket;
    },
  },
  get_ticket: {
    params: [req('ticket_id')],
    fn(this: TicketAPI, ticketId: unknown) {
      return this.findTicket(ticketId) ?? notFound(ticketId);
    },
  },
  close_ticket: {
    params: [req('ticket_id')],
    fn(this: TicketAPI, ticketId: unknown) {
      const ticket = this.findTicket(ticketId);
      if (!ticket) return notFound(ticketId);
      if (pyEq(getItem(ticket, 'status'), 'Closed')) {
        return new Map([['error', `Ticket with ID ${pyStr(ticketId)} is already closed.`]]);
      }
      ticket.set('status', 'Closed');
      return new Map([['status', `Ticket ${pyStr(ticketId)} has been closed successfully.`]]);
    },
  },
  resolve_ticket: {
    params: [req('ticket_id'), req('resolution')],
    fn(this: TicketAPI, ticketId: unknown, resolution: unknown) {
      const ticket = this.findTicket(ticketId);
      if (!ticket) return notFound(ticketId);
      if (pyEq(getItem(ticket, 'status'), 'Resolved')) {
        return new Map([['error', `Ticket with ID ${pyStr(ticketId)} is already resolved.`]]);
      }
      ticket.set('status', 'Resolved');
      ticket.set('resolution', resolution);
      return new Map([['status', `Ticket ${pyStr(ticketId)} has been resolved successfully.`]]);
    },
  },
  edit_ticket: {
    params: [req('ticket_id'), req('updates')],
    fn(this: TicketAPI, ticketId: unknown, updates: unknown) {
      const ticket = this.findTicket(ticketId);
      if (!ticket) return notFound(ticketId);
      if (!isPyDict(updates)) throw attributeError(updates, 'keys');
      const upd = updates as PyMap;
      const valid = new Set(['title', 'description', 'status', 'priority']);
      // Python builds this list from a set, so its order follows string hashing; insertion order is the
      // deterministic stand-in.
      const invalid = [...upd.keys()].filter((k) => !(typeof k === 'string' && valid.has(k)));
      if (invalid.length) {
        const bad = invalid.findIndex((k) => typeof k !== 'string');
        if (bad >= 0) throw typeError(`sequence item ${bad}: expected str instance, ${pyTypeName(invalid[bad])} found`);
        return new Map([['error', `Invalid fields for update: ${invalid.join(', ')}`]]);
      }
      for (const [k, v] of upd) if (v !== null) setItem(ticket, k, v);
      return new Map([['status', `Ticket ${pyStr(ticketId)} has been updated successfully.`]]);
    },
  },
  ticket_login: {
    params: [req('username'), req('password')],
    fn(this: TicketAPI, username: unknown, password: unknown) {
      if (pyTruthy(username) && pyTruthy(password)) {
        this.current_user = username;
        return new Map([['success', true]]);
      }
      return new Map([['success', false]]);
    },
  },
  ticket_get_login_status: {
    params: [],
    fn(this: TicketAPI) {
      return new Map([['login_status', pyTruthy(this.current_user)]]);
    },
  },
  logout: {
    params: [],
    fn(this: TicketAPI) {
      if (pyTruthy(this.current_user)) {
        this.current_user = null;
        return new Map([['success', true]]);
      }
      return new Map([['success', false]]);
    },
  },
  get_user_tickets: {
    params: [opt('status', null)],
    fn(this: TicketAPI, status: unknown) {
      if (!pyTruthy(this.current_user)) return [new Map([['error', 'User not authenticated. Please log in to view tickets.']])];
      let mine = this.queue().filter((t) => pyEq(getItem(t, 'created_by'), this.current_user));
      if (pyTruthy(status)) {
        mine = mine.filter((t) => {
          const have = strMethod(getItem(t, 'status'), 'lower').toLowerCase();
          return have === strMethod(status, 'lower').toLowerCase();
        });
      }
      return mine;
    },
  },
};

registerBackend('TicketAPI', () => new TicketAPI());
