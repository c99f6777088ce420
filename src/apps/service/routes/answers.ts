/** POST /v1/answers (AnswerService). */
import { resourcePlugin } from "./plugin.js";

export const answerRoutes = resourcePlugin("answers", {
  answer: (req, _reply, { answers }) => answers.answer(req.body),
});
