export {
  Check,
  contextOf,
  IfPresent,
  isPlainObject,
  MapOf,
  Nested,
  RawField,
  toDto,
  Problem,
  UnknownFieldProblem,
  WHOLE_OBJECT,
  WholeProblem,
  withContext,
} from './wire-decorators';
export {
  NOT_AN_OBJECT,
  parseWire,
  toErrorDetails,
  validationFailure,
  WIRE_VALIDATOR_OPTIONS,
} from './wire-validation';
export { FiniteNumber, Required, Rules, ValidExpression, WithinMagnitude } from './rules';
