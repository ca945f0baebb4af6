/** Lambda entry point for the calendar routes. */
import { withPowertools } from '../shared/powertools';
import { createCalendarsHandler } from './adapter';
import { calendarApiDependencies } from './dependencies';
import { calendarsEnvironmentSchema } from './environment';

const env = calendarsEnvironmentSchema.parse(process.env);
export const handler = withPowertools(createCalendarsHandler(calendarApiDependencies(env)));
