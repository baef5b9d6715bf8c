// Public surface of the τ² port (browser-safe; Node file loading lives in ./fs and ./conformance).

export { Tau2Environment, ModelDump, toJsonStr, addictMerge } from './toolkit';
export type {
  Tau2Observation, Tau2Message, Tau2ToolCall, ToolResponse, InitialState, EnvFunctionCall, EnvAssertion, Tau2Store,
  Tau2DomainKit, ToolSpec, FunctionSpec, ToolKind, Requestor,
} from './toolkit';
export { createRetailEnv, RETAIL_KIT, type RetailEnv } from './retail/env';
export { RetailStore, RetailDataError, retailStoreFromJson } from './retail/data_model';
export type {
  RetailDBJson, RetailProductJson, RetailVariantJson, RetailUserJson, RetailOrderJson, RetailOrderItemJson,
  RetailOrderPaymentJson, RetailPaymentMethodJson, RetailAddressJson, RetailOrderStatus,
} from './retail/data_model';
export { createMockEnv, MockStore, MockDataError, MOCK_KIT, type MockDBJson, type MockEnv } from './mock/env';
export { parseTasks, parseSplit, parseDbJson, taskFromJson, agentSystemPrompt, AGENT_INSTRUCTION } from './tasks';
export type { Tau2Task, Tau2Action, EvaluationCriteria, RewardType, StructuredUserInstructions, Tau2Split } from './tasks';
export {
  evaluateTask, evaluateEnvironment, evaluateCommunicate, evaluateActions, actionMatches, passHatK, passHatKForTask,
  isSuccessful, trajectoryFromCalls,
} from './evaluator';
export type { RewardInfo, DBCheck, CommunicateCheck, ActionCheck, EnvAssertionCheck, TerminationReason } from './evaluator';
export { ScriptedUser, renderUserScenario, isStopMessage, STOP, TRANSFER, OUT_OF_SCOPE } from './user';
export type { UserSimulator, UserTurn } from './user';
export { calculate } from './calc';
export { toPlaygroundTask, type Tau2DomainLike } from './playground';
export { tau2DomainFromTexts, type Tau2Domain, type Tau2DomainName, type Tau2DomainTexts } from './domain';
