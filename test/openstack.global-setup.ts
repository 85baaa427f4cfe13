import './paths';
import { ensureTestbedUp } from '@stratus/testing';

/** The testbed runs before any OpenStack-backed spec: brought up (installed the first time) when it is not. */
export default function globalSetup(): void {
  ensureTestbedUp();
}
