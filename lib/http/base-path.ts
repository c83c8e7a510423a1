/** The API's path on its host (serverless.yml routes it): the service, the agent, the scripts and the tests import it. */
export const BASE_PATH = '/api/ocloudNotifications/v2';
