// serverless-iam-roles-per-function gives every function its own role but leaves the framework's
// shared default role in the template. Nothing uses it, so it only widens what the stack grants:
// remove it when no other resource refers to it.
class PruneUnusedDefaultRole {
  /** @param {{ service: { provider: { compiledCloudFormationTemplate: { Resources: Record<string, unknown> } } } }} serverless */
  constructor(serverless) {
    this.hooks = {
      'before:package:finalize': () => {
        const resources = serverless.service.provider.compiledCloudFormationTemplate.Resources;
        const { IamRoleLambdaExecution, ...others } = resources;
        if (IamRoleLambdaExecution && !JSON.stringify(others).includes('"IamRoleLambdaExecution"')) {
          delete resources.IamRoleLambdaExecution;
        }
      },
    };
  }
}

module.exports = PruneUnusedDefaultRole;
