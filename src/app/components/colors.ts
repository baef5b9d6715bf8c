// Metric colours shared by every chart (no recharts import: the Rollout page's first paint needs them).
export const COLORS = { reward: '#5cc8ff', loss: '#ff8a65', grad: '#ffd166', kl: '#c792ea', fidelity: '#7bd88f', success: '#4dd0e1' };
