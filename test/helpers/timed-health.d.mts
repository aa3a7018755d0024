export function timedHealth(url: string): Promise<number | null>;
