/**
 * Names a folder where the processes of one test run share their syntheses (set by the run's
 * global setup): the template does not change during a run, and each synthesis costs seconds.
 */
export const SYNTH_SHARE_VARIABLE = 'MEETING_PIPELINE_TEST_SHARED';
