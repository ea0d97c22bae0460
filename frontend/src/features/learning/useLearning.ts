import useSWR from 'swr';
import type { CaseList, LessonList } from '../../api/types';
import { casesKey } from './learning';

/** The read (and SWR key) of every lesson. */
export const LESSONS_KEY = '/api/lessons';

/** Every lesson, most confirmed first; not polled, so an edit under way is never overwritten. */
export function useLessons() {
  return useSWR<LessonList>(LESSONS_KEY, { revalidateOnFocus: false });
}

/** One page of the cases matching q, newest first; the page shown stays while the next one loads. */
export function useCases(page: number, q: string) {
  return useSWR<CaseList>(casesKey(page, q), { keepPreviousData: true });
}
