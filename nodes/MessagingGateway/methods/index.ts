/** The node's `methods`: option loaders and resource mappers that read from the gateway while editing. */
import { getBodyExampleFields } from './bodyExamples';
import { getTemplateParameterFields, getTemplateParameters } from './templateParameters';

export const loadOptions = { getTemplateParameters };

export const resourceMapping = { getTemplateParameterFields, getBodyExampleFields };

export { bodyExampleId, bodyExamplesField } from './bodyExamples';
