// What a browser app ships for the consent step: the whole `openbanking-ng/pkce` entry.
export * from 'openbanking-ng/pkce';
