import { Type } from '@nestjs/common';

const COMPONENTS = new Set<Type>();

/**
 * A class no route refers to that the contract still describes among its components: the arguments of an MCP tool,
 * whose input schema is read from the contract.
 */
export const ContractComponent = (): ClassDecorator => (target) => {
  COMPONENTS.add(target as unknown as Type);
};

/** Every class marked @ContractComponent that has been loaded. */
export const contractComponents = (): Type[] => [...COMPONENTS];
