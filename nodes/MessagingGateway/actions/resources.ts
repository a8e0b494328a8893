/** The node's resources, each with its operations; the order here is the order in the editor. */
import * as message from './message';
import * as template from './template';
import * as webhook from './webhook';
import * as profile from './profile';
import * as media from './media';
import * as personData from './personData';
import type { Resource } from './types';

export const resources = { message, template, webhook, profile, media, personData } satisfies Record<string, Resource>;

export type ResourceName = keyof typeof resources;
