import type Docker from 'dockerode';

export async function hasImage(docker: Docker, image: string): Promise<boolean> {
  return docker.getImage(image).inspect().then(() => true, () => false);
}

/** `docker save` on one daemon streamed into `docker load` on another, through the API. */
export async function copyImage(from: Docker, to: Docker, image: string): Promise<void> {
  const saved = await from.getImage(image).get();
  const loading = await to.loadImage(saved, { quiet: true });
  await new Promise<void>((resolve, reject) => {
    to.modem.followProgress(loading, (error: Error | null, events: Array<{ error?: string }>) => {
      const failed = error ?? (events.find((e) => e.error) ? new Error(events.find((e) => e.error)!.error) : null);
      if (failed) reject(failed);
      else resolve();
    });
  });
  if (!(await hasImage(to, image))) throw new Error('docker load finished but the image is not there');
}
