// `@sched/contract/machines`: the state tables and the rules read from them that both the service and the console
// apply, so a button is offered exactly where the service would accept the request. A subpath of its own: the SDK
// imports the contract's index, and none of this should come into its bundle.
export * from './action.js';
export * from './approval.js';
export * from './chain.js';
export * from './circuit.js';
