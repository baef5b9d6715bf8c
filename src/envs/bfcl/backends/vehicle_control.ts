// BFCL's VehicleControlAPI (car controls and readings) ported to TypeScript with the same results and
// state. long_context=True needs BFCL's long_context.py extension data, which is not ported.

import { PyFloat } from '../../python';
import { registerBackend } from '../backend';
import { PyRandom } from '../pyrandom';
import {
  F, MethodSpec, PyBackend, PyMap, attributeError, cfg, configMap, getItem, pyAdd, pyCmp, pyEq, pyFloatOf, pyIn,
  pyIter, pyMod, pyMul, pySub, pyTrueDiv, pyTruthy, req, opt, seedOf, setItem, toPy,
} from '../pyops';

const DEFAULT_SEED = 141053;
const MAX_FUEL_LEVEL = 50;
const MIN_FUEL_LEVEL = F(0);
const MILE_PER_GALLON = F(20);

const DISTANCES: [string, string, number][] = [
  ['83214', '74532', 750], ['56108', '62947', 320], ['71354', '83462', 450], ['47329', '52013', 290],
  ['69238', '51479', 630], ['94016', '83214', 980], ['94016', '94704', 600], ['94704', '08540', 2550],
  ['94016', '08540', 1950], ['62947', '47329', 1053], ['94016', '62947', 780], ['74532', '94016', 880],
];

const ZIPCODES: Map<string, string> = new Map([
  ['Rivermist', '83214'], ['Stonebrook', '74532'], ['Maplecrest', '56108'], ['Silverpine', '62947'],
  ['Shadowridge', '71354'], ['Sunset Valley', '83462'], ['Oakendale', '47329'], ['Willowbend', '52013'],
  ['Crescent Hollow', '69238'], ['Autumnville', '51479'], ['San Francisco', '94016'],
]);

const err = (msg: unknown): PyMap => new Map([['error', msg]]);

/** Public attributes in Python's attribute order (the state), with their defaults. */
const PUBLIC_DEFAULTS: [string, () => unknown][] = [
  ['fuelLevel', () => F(0)],
  ['batteryVoltage', () => F(12.6)],
  ['engine_state', () => 'stopped'],
  ['remainingUnlockedDoors', () => 4],
  ['doorStatus', () => new Map([['driver', 'unlocked'], ['passenger', 'unlocked'], ['rear_left', 'unlocked'],
    ['rear_right', 'unlocked']])],
  ['acTemperature', () => F(25)],
  ['fanSpeed', () => 50],
  ['acMode', () => 'auto'],
  ['humidityLevel', () => F(50)],
  ['headLightStatus', () => 'off'],
  ['parkingBrakeStatus', () => 'released'],
  ['brakePedalStatus', () => 'released'],
  ['distanceToNextVehicle', () => F(50)],
  ['cruiseStatus', () => 'inactive'],
  ['destination', () => 'None'],
  ['frontLeftTirePressure', () => F(32)],
  ['frontRightTirePressure', () => F(32)],
  ['rearLeftTirePressure', () => F(30)],
  ['rearRightTirePressure', () => F(30)],
];

export class VehicleControlAPI extends PyBackend<VehicleControlAPI> {
  readonly className = 'VehicleControlAPI';
  /** Public attributes by name (Python attribute order), long_context last. */
  attrs: Map<string, unknown> = new Map();
  parkingBrakeForce: unknown = F(0);
  slopeAngle: unknown = F(0);
  brakePedalForce: unknown = F(0);
  rng = new PyRandom(DEFAULT_SEED);

  constructor() {
    super();
    for (const [k, make] of PUBLIC_DEFAULTS) this.attrs.set(k, make());
    this.attrs.set('long_context', false);
  }

  get(name: string): unknown { return this.attrs.get(name); }
  set(name: string, v: unknown): void { this.attrs.set(name, v); }

  loadScenario(config: unknown, longContext: boolean): void {
    if (longContext) throw new Error('VehicleControlAPI: long_context=True is not ported');
    const s = configMap(config);
    this.rng = new PyRandom(seedOf(cfg(s, 'random_seed', DEFAULT_SEED)));
    this.attrs = new Map();
    for (const [k, make] of PUBLIC_DEFAULTS) {
      // The config spells the engine state "engineState"; the attribute is engine_state.
      this.attrs.set(k, cfg(s, k === 'engine_state' ? 'engineState' : k, k === 'engine_state' ? 'stopped' : make()));
    }
    // The configured count is ignored: it is recomputed from the door states.
    const doors = this.get('doorStatus');
    if (!(doors instanceof Map)) throw attributeError(doors, 'keys');
    let locked = 0;
    for (const d of doors.keys()) if (pyEq(doors.get(d), 'locked')) locked++;
    this.set('remainingUnlockedDoors', 4 - locked);
    this.parkingBrakeForce = cfg(s, 'parkingBrakeForce', F(0));
    this.slopeAngle = cfg(s, 'slopeAngle', F(0));
    this.brakePedalForce = cfg(s, 'brakePedalForce', F(0));
    this.set('long_context', longContext);
  }

  state(): unknown {
    return toPy(Object.fromEntries(this.attrs));
  }

  clone(): VehicleControlAPI {
    const c = new VehicleControlAPI();
    c.attrs = toPy(this.attrs) as Map<string, unknown>;
    c.parkingBrakeForce = this.parkingBrakeForce;
    c.slopeAngle = this.slopeAngle;
    c.brakePedalForce = this.brakePedalForce;
    c.rng = this.rng.clone();
    return c;
  }

  protected table(): Record<string, MethodSpec<VehicleControlAPI>> {
    return METHODS;
  }
}

const METHODS: Record<string, MethodSpec<VehicleControlAPI>> = {
  startEngine: {
    params: [req('ignitionMode')],
    fn(this: VehicleControlAPI, mode: unknown) {
      if (pyEq(mode, 'STOP')) this.set('engine_state', 'stopped');
      if (pyCmp('>', this.get('remainingUnlockedDoors'), 0)) {
        const doors = this.get('doorStatus') as PyMap;
        const open = [...doors.entries()].filter(([, st]) => pyEq(st, 'unlocked')).map(([d]) => String(d));
        return err(`All doors must be locked before starting the engine. Here are the unlocked doors: ${open.join(', ')}`);
      }
      if (!pyEq(this.get('brakePedalStatus'), 'pressed')) return err('Brake pedal needs to be pressed when starting the engine.');
      if (!pyEq(this.brakePedalForce, F(1000))) return err('Must press the brake fully before starting the engine.');
      if (pyCmp('<', this.get('fuelLevel'), MIN_FUEL_LEVEL)) return err('Fuel tank is empty.');
      if (pyEq(mode, 'START')) this.set('engine_state', 'running');
      else return err('Invalid ignition mode.');
      return new Map<string, unknown>([['engineState', this.get('engine_state')], ['fuelLevel', this.get('fuelLevel')],
        ['batteryVoltage', this.get('batteryVoltage')]]);
    },
  },
  fillFuelTank: {
    params: [req('fuelAmount')],
    fn(this: VehicleControlAPI, amount: unknown) {
      if (pyCmp('<', amount, 0)) return err('Fuel amount cannot be negative.');
      if (pyCmp('>', pyAdd(this.get('fuelLevel'), amount), MAX_FUEL_LEVEL)) return err('Cannot fill gas above the tank capacity.');
      if (pyCmp('<', pyAdd(this.get('fuelLevel'), amount), MIN_FUEL_LEVEL)) {
        return err('Fuel tank is empty. Min fuel level is 0 gallons.');
      }
      this.set('fuelLevel', pyAdd(this.get('fuelLevel'), amount));
      return new Map([['fuelLevel', this.get('fuelLevel')]]);
    },
  },
  lockDoors: {
    params: [req('unlock'), req('door')],
    fn(this: VehicleControlAPI, unlock: unknown, door: unknown) {
      const doors = this.get('doorStatus');
      const target = pyTruthy(unlock) ? 'unlocked' : 'locked';
      for (const d of pyIter(door)) {
        if (pyEq(getItem(doors, d), target)) continue;
        setItem(doors, d, target);
        const n = this.get('remainingUnlockedDoors');
        this.set('remainingUnlockedDoors', target === 'unlocked' ? pyAdd(n, 1) : pySub(n, 1));
      }
      return new Map<string, unknown>([['lockStatus', target], ['remainingUnlockedDoors', this.get('remainingUnlockedDoors')]]);
    },
  },
  adjustClimateControl: {
    params: [req('temperature'), opt('unit', 'celsius'), opt('fanSpeed', 50), opt('mode', 'auto')],
    fn(this: VehicleControlAPI, temperature: unknown, unit: unknown, fanSpeed: unknown, mode: unknown) {
      if (!(pyCmp('<=', 0, fanSpeed) && pyCmp('<=', fanSpeed, 100))) return err('Fan speed must be between 0 and 100.');
      this.set('acTemperature', temperature);
      if (pyEq(unit, 'fahrenheit')) this.set('acTemperature', pyTrueDiv(pyMul(pySub(temperature, 32), 5), 9));
      this.set('fanSpeed', fanSpeed);
      this.set('acMode', mode);
      return new Map<string, unknown>([['currentACTemperature', temperature], ['climateMode', mode],
        ['humidityLevel', this.get('humidityLevel')]]);
    },
  },
  get_outside_temperature_from_google: {
    params: [],
    fn(this: VehicleControlAPI) {
      return new Map([['outsideTemperature', new PyFloat(this.rng.uniform(-10.0, 40.0))]]);
    },
  },
  get_outside_temperature_from_weather_com: {
    params: [],
    fn() {
      return err(404);
    },
  },
  setHeadlights: {
    params: [req('mode')],
    fn(this: VehicleControlAPI, mode: unknown) {
      if (!pyIn(mode, ['on', 'off', 'auto'])) return err('Invalid headlight mode.');
      const status = pyEq(mode, 'on') ? 'on' : 'off';
      this.set('headLightStatus', status);
      return new Map([['headlightStatus', status]]);
    },
  },
  displayCarStatus: {
    params: [req('option')],
    fn(this: VehicleControlAPI, option: unknown) {
      const status: PyMap = new Map();
      const pick = (pairs: [string, unknown][]): void => { for (const [k, v] of pairs) status.set(k, v); };
      if (pyEq(option, 'fuel')) pick([['fuelLevel', this.get('fuelLevel')]]);
      else if (pyEq(option, 'battery')) pick([['batteryVoltage', this.get('batteryVoltage')]]);
      else if (pyEq(option, 'doors')) pick([['doorStatus', this.get('doorStatus')]]);
      else if (pyEq(option, 'climate')) {
        pick([['currentACTemperature', this.get('acTemperature')], ['fanSpeed', this.get('fanSpeed')],
          ['climateMode', this.get('acMode')], ['humidityLevel', this.get('humidityLevel')]]);
      } else if (pyEq(option, 'headlights')) pick([['headlightStatus', this.get('headLightStatus')]]);
      else if (pyEq(option, 'parkingBrake')) {
        pick([['parkingBrakeStatus', this.get('parkingBrakeStatus')], ['parkingBrakeForce', this.parkingBrakeForce],
          ['slopeAngle', this.slopeAngle]]);
      } else if (pyEq(option, 'brakePedal')) {
        pick([['brakePedalStatus', this.get('brakePedalStatus')], ['brakePedalForce', this.brakePedalForce]]);
      } else if (pyEq(option, 'engine')) pick([['engineState', this.get('engine_state')]]);
      else pick([['error', 'Invalid option']]);
      return status;
    },
  },
  activateParkingBrake: {
    params: [req('mode')],
    fn(this: VehicleControlAPI, mode: unknown) {
      if (!pyIn(mode, ['engage', 'release'])) return err('Invalid mode');
      const engage = pyEq(mode, 'engage');
      const status = engage ? 'engaged' : 'released';
      this.set('parkingBrakeStatus', status);
      this.parkingBrakeForce = F(engage ? 500 : 0);
      this.slopeAngle = F(10);
      // BFCL reports the private attribute names here.
      return new Map<string, unknown>([['parkingBrakeStatus', status], ['_parkingBrakeForce', F(engage ? 500 : 0)],
        ['_slopeAngle', F(10)]]);
    },
  },
  pressBrakePedal: {
    params: [req('pedalPosition')],
    fn(this: VehicleControlAPI, position: unknown) {
      if (!(pyCmp('<=', 0, position) && pyCmp('<=', position, 1))) return err('Pedal position must be between 0 and 1.');
      if (pyEq(position, 0)) {
        this.set('brakePedalStatus', 'released');
        this.brakePedalForce = F(0);
        return new Map<string, unknown>([['brakePedalStatus', 'released'], ['brakePedalForce', F(0)]]);
      }
      const force = pyMul(position, 1000);
      this.set('brakePedalStatus', 'pressed');
      this.brakePedalForce = force;
      return new Map<string, unknown>([['brakePedalStatus', 'pressed'], ['brakePedalForce', pyFloatOf(force)]]);
    },
  },
  releaseBrakePedal: {
    params: [],
    fn(this: VehicleControlAPI) {
      this.set('brakePedalStatus', 'released');
      this.brakePedalForce = F(0);
      return new Map<string, unknown>([['brakePedalStatus', 'released'], ['brakePedalForce', F(0)]]);
    },
  },
  setCruiseControl: {
    params: [req('speed'), req('activate'), req('distanceToNextVehicle')],
    fn(this: VehicleControlAPI, speedArg: unknown, activate: unknown, distanceArg: unknown) {
      const distance = pyFloatOf(distanceArg);
      const speed = pyFloatOf(speedArg);
      if (pyEq(this.get('engine_state'), 'stopped')) return err('Start the engine before activating the cruise control.');
      if (pyTruthy(activate)) {
        this.set('distanceToNextVehicle', distance);
        if (pyCmp('<', speed, 0) || pyCmp('>', speed, 120) || !pyEq(pyMod(speed, 5), 0)) return err('Invalid speed');
        this.set('cruiseStatus', 'active');
      } else {
        this.set('cruiseStatus', 'inactive');
        this.set('distanceToNextVehicle', distance);
      }
      return new Map<string, unknown>([['cruiseStatus', this.get('cruiseStatus')], ['currentSpeed', speed],
        ['distanceToNextVehicle', distance]]);
    },
  },
  get_current_speed: {
    params: [],
    fn(this: VehicleControlAPI) {
      return new Map([['currentSpeed', new PyFloat(this.rng.uniform(0.0, 120.0))]]);
    },
  },
  display_log: {
    params: [req('messages')],
    fn(messages: unknown) {
      return new Map([['log', messages]]);
    },
  },
  estimate_drive_feasibility_by_mileage: {
    params: [req('distance')],
    fn(this: VehicleControlAPI, distance: unknown) {
      return new Map([['canDrive', !pyCmp('<', pyMul(this.get('fuelLevel'), MILE_PER_GALLON), distance)]]);
    },
  },
  liter_to_gallon: {
    params: [req('liter')],
    fn(liter: unknown) {
      return new Map([['gallon', pyMul(liter, F(0.264172))]]);
    },
  },
  gallon_to_liter: {
    params: [req('gallon')],
    fn(gallon: unknown) {
      return new Map([['liter', pyMul(gallon, F(3.78541))]]);
    },
  },
  estimate_distance: {
    params: [req('cityA'), req('cityB')],
    fn(cityA: unknown, cityB: unknown) {
      const hit = DISTANCES.find(([a, b]) => (pyEq(cityA, a) && pyEq(cityB, b)) || (pyEq(cityA, b) && pyEq(cityB, a)));
      return hit ? new Map([['distance', F(hit[2])]]) : err('distance not found in database.');
    },
  },
  get_zipcode_based_on_city: {
    params: [req('city')],
    fn(city: unknown) {
      return new Map([['zipcode', (typeof city === 'string' && ZIPCODES.get(city)) || '00000']]);
    },
  },
  set_navigation: {
    params: [req('destination')],
    fn(this: VehicleControlAPI, destination: unknown) {
      this.set('destination', destination);
      return new Map([['status', pyAdd('Navigating to ', destination)]]);
    },
  },
  check_tire_pressure: {
    params: [],
    fn(this: VehicleControlAPI) {
      const names = ['frontLeftTirePressure', 'frontRightTirePressure', 'rearLeftTirePressure', 'rearRightTirePressure'];
      const avg = pyTrueDiv(names.map((n) => this.get(n)).reduce((a, b) => pyAdd(a, b)), 4);
      const healthy = pyCmp('<=', 30, avg) && pyCmp('<=', avg, 35);
      const out: PyMap = new Map(names.map((n) => [n, this.get(n)]));
      out.set('healthy_tire_pressure', healthy);
      out.set('car_info', new Map());
      return out;
    },
  },
  find_nearest_tire_shop: {
    params: [],
    fn() {
      return new Map([['shopLocation', '456 Oakwood Avenue, Rivermist, 83214']]);
    },
  },
};

registerBackend('VehicleControlAPI', () => new VehicleControlAPI());
