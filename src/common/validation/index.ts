export {
  contextOf,
  DependsOnOtherFields,
  EachEntry,
  EachItem,
  IfPresent,
  isPlainObject,
  MapOf,
  Nested,
  RawField,
  toDto,
  Problem,
  UnknownFieldProblem,
  WholeProblem,
  withContext,
} from './wire-decorators';
export { NOT_AN_OBJECT, parseWire, validationFailure, WIRE_VALIDATOR_OPTIONS } from './wire-validation';
export {
  FiniteNumber,
  HttpUrl,
  httpUrlProblem,
  Nullable,
  Rules,
  NULLABLE_RULE,
  Required,
  ValidExpression,
  WithinMagnitude,
} from './rules';
