/** Lambda entry point for the calendar routes. */
import { withPowertools } from '../shared/powertools';
import { createCalendarsHandler } from './adapter';
import { calendarApiDependencies } from './dependencies';

export const handler = withPowertools(createCalendarsHandler(calendarApiDependencies()));
