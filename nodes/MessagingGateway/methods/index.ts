/** The node's `methods`: option loaders and resource mappers that read from the gateway while editing. */
import { getTemplateParameterFields, getTemplateParameters } from './templateParameters';

export const loadOptions = { getTemplateParameters };

export const resourceMapping = { getTemplateParameterFields };

export { TEMPLATE_ID_PARAMETER, templateParametersField } from './templateParameters';
