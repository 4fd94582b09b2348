// Built by scripts/build-ui.mjs from ui/src and src/client. Do not edit.
var Fe=globalThis,ot=n=>n,ke=Fe.trustedTypes,at=ke?ke.createPolicy("lit-html",{createHTML:n=>n}):void 0,Ue="$lit$",j=`lit$${Math.random().toFixed(9).slice(2)}$`,je="?"+j,hn=`<${je}>`,J=document,ce=()=>J.createComment(""),de=n=>n===null||typeof n!="object"&&typeof n!="function",Ve=Array.isArray,ht=n=>Ve(n)||typeof n?.[Symbol.iterator]=="function",We=`[ 	
\f\r]`,le=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,lt=/-->/g,ct=/>/g,z=RegExp(`>|${We}(?:([^\\s"'>=/]+)(${We}*=${We}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),dt=/'/g,ut=/"/g,mt=/^(?:script|style|textarea|title)$/i,Be=n=>(e,...t)=>({_$litType$:n,strings:e,values:t}),c=Be(1),pe=Be(2),Hn=Be(3),X=Symbol.for("lit-noChange"),$=Symbol.for("lit-nothing"),pt=new WeakMap,Q=J.createTreeWalker(J,129);function gt(n,e){if(!Ve(n)||!n.hasOwnProperty("raw"))throw Error("invalid template strings array");return at!==void 0?at.createHTML(e):e}var ft=(n,e)=>{let t=n.length-1,r=[],i,o=e===2?"<svg>":e===3?"<math>":"",a=le;for(let f=0;f<t;f++){let d=n[f],h,u,m=-1,b=0;for(;b<d.length&&(a.lastIndex=b,u=a.exec(d),u!==null);)b=a.lastIndex,a===le?u[1]==="!--"?a=lt:u[1]!==void 0?a=ct:u[2]!==void 0?(mt.test(u[2])&&(i=RegExp("</"+u[2],"g")),a=z):u[3]!==void 0&&(a=z):a===z?u[0]===">"?(a=i??le,m=-1):u[1]===void 0?m=-2:(m=a.lastIndex-u[2].length,h=u[1],a=u[3]===void 0?z:u[3]==='"'?ut:dt):a===ut||a===dt?a=z:a===lt||a===ct?a=le:(a=z,i=void 0);let w=a===z&&n[f+1].startsWith("/>")?" ":"";o+=a===le?d+hn:m>=0?(r.push(h),d.slice(0,m)+Ue+d.slice(m)+j+w):d+j+(m===-2?f:w)}return[gt(n,o+(n[t]||"<?>")+(e===2?"</svg>":e===3?"</math>":"")),r]},ue=class n{constructor({strings:e,_$litType$:t},r){let i;this.parts=[];let o=0,a=0,f=e.length-1,d=this.parts,[h,u]=ft(e,t);if(this.el=n.createElement(h,r),Q.currentNode=this.el.content,t===2||t===3){let m=this.el.content.firstChild;m.replaceWith(...m.childNodes)}for(;(i=Q.nextNode())!==null&&d.length<f;){if(i.nodeType===1){if(i.hasAttributes())for(let m of i.getAttributeNames())if(m.endsWith(Ue)){let b=u[a++],w=i.getAttribute(m).split(j),k=/([.?@])?(.*)/.exec(b);d.push({type:1,index:o,name:k[2],strings:w,ctor:k[1]==="."?Se:k[1]==="?"?Te:k[1]==="@"?Ae:ee}),i.removeAttribute(m)}else m.startsWith(j)&&(d.push({type:6,index:o}),i.removeAttribute(m));if(mt.test(i.tagName)){let m=i.textContent.split(j),b=m.length-1;if(b>0){i.textContent=ke?ke.emptyScript:"";for(let w=0;w<b;w++)i.append(m[w],ce()),Q.nextNode(),d.push({type:2,index:++o});i.append(m[b],ce())}}}else if(i.nodeType===8)if(i.data===je)d.push({type:2,index:o});else{let m=-1;for(;(m=i.data.indexOf(j,m+1))!==-1;)d.push({type:7,index:o}),m+=j.length-1}o++}}static createElement(e,t){let r=J.createElement("template");return r.innerHTML=e,r}};function Z(n,e,t=n,r){if(e===X)return e;let i=r!==void 0?t._$Co?.[r]:t._$Cl,o=de(e)?void 0:e._$litDirective$;return i?.constructor!==o&&(i?._$AO?.(!1),o===void 0?i=void 0:(i=new o(n),i._$AT(n,t,r)),r!==void 0?(t._$Co??=[])[r]=i:t._$Cl=i),i!==void 0&&(e=Z(n,i._$AS(n,e.values),i,r)),e}var xe=class{constructor(e,t){this._$AV=[],this._$AN=void 0,this._$AD=e,this._$AM=t}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(e){let{el:{content:t},parts:r}=this._$AD,i=(e?.creationScope??J).importNode(t,!0);Q.currentNode=i;let o=Q.nextNode(),a=0,f=0,d=r[0];for(;d!==void 0;){if(a===d.index){let h;d.type===2?h=new ie(o,o.nextSibling,this,e):d.type===1?h=new d.ctor(o,d.name,d.strings,this,e):d.type===6&&(h=new Ee(o,this,e)),this._$AV.push(h),d=r[++f]}a!==d?.index&&(o=Q.nextNode(),a++)}return Q.currentNode=J,i}p(e){let t=0;for(let r of this._$AV)r!==void 0&&(r.strings!==void 0?(r._$AI(e,r,t),t+=r.strings.length-2):r._$AI(e[t])),t++}},ie=class n{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(e,t,r,i){this.type=2,this._$AH=$,this._$AN=void 0,this._$AA=e,this._$AB=t,this._$AM=r,this.options=i,this._$Cv=i?.isConnected??!0}get parentNode(){let e=this._$AA.parentNode,t=this._$AM;return t!==void 0&&e?.nodeType===11&&(e=t.parentNode),e}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(e,t=this){e=Z(this,e,t),de(e)?e===$||e==null||e===""?(this._$AH!==$&&this._$AR(),this._$AH=$):e!==this._$AH&&e!==X&&this._(e):e._$litType$!==void 0?this.$(e):e.nodeType!==void 0?this.T(e):ht(e)?this.k(e):this._(e)}O(e){return this._$AA.parentNode.insertBefore(e,this._$AB)}T(e){this._$AH!==e&&(this._$AR(),this._$AH=this.O(e))}_(e){this._$AH!==$&&de(this._$AH)?this._$AA.nextSibling.data=e:this.T(J.createTextNode(e)),this._$AH=e}$(e){let{values:t,_$litType$:r}=e,i=typeof r=="number"?this._$AC(e):(r.el===void 0&&(r.el=ue.createElement(gt(r.h,r.h[0]),this.options)),r);if(this._$AH?._$AD===i)this._$AH.p(t);else{let o=new xe(i,this),a=o.u(this.options);o.p(t),this.T(a),this._$AH=o}}_$AC(e){let t=pt.get(e.strings);return t===void 0&&pt.set(e.strings,t=new ue(e)),t}k(e){Ve(this._$AH)||(this._$AH=[],this._$AR());let t=this._$AH,r,i=0;for(let o of e)i===t.length?t.push(r=new n(this.O(ce()),this.O(ce()),this,this.options)):r=t[i],r._$AI(o),i++;i<t.length&&(this._$AR(r&&r._$AB.nextSibling,i),t.length=i)}_$AR(e=this._$AA.nextSibling,t){for(this._$AP?.(!1,!0,t);e!==this._$AB;){let r=ot(e).nextSibling;ot(e).remove(),e=r}}setConnected(e){this._$AM===void 0&&(this._$Cv=e,this._$AP?.(e))}},ee=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(e,t,r,i,o){this.type=1,this._$AH=$,this._$AN=void 0,this.element=e,this.name=t,this._$AM=i,this.options=o,r.length>2||r[0]!==""||r[1]!==""?(this._$AH=Array(r.length-1).fill(new String),this.strings=r):this._$AH=$}_$AI(e,t=this,r,i){let o=this.strings,a=!1;if(o===void 0)e=Z(this,e,t,0),a=!de(e)||e!==this._$AH&&e!==X,a&&(this._$AH=e);else{let f=e,d,h;for(e=o[0],d=0;d<o.length-1;d++)h=Z(this,f[r+d],t,d),h===X&&(h=this._$AH[d]),a||=!de(h)||h!==this._$AH[d],h===$?e=$:e!==$&&(e+=(h??"")+o[d+1]),this._$AH[d]=h}a&&!i&&this.j(e)}j(e){e===$?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,e??"")}},Se=class extends ee{constructor(){super(...arguments),this.type=3}j(e){this.element[this.name]=e===$?void 0:e}},Te=class extends ee{constructor(){super(...arguments),this.type=4}j(e){this.element.toggleAttribute(this.name,!!e&&e!==$)}},Ae=class extends ee{constructor(e,t,r,i,o){super(e,t,r,i,o),this.type=5}_$AI(e,t=this){if((e=Z(this,e,t,0)??$)===X)return;let r=this._$AH,i=e===$&&r!==$||e.capture!==r.capture||e.once!==r.once||e.passive!==r.passive,o=e!==$&&(r===$||i);i&&this.element.removeEventListener(this.name,this,r),o&&this.element.addEventListener(this.name,this,e),this._$AH=e}handleEvent(e){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,e):this._$AH.handleEvent(e)}},Ee=class{constructor(e,t,r){this.element=e,this.type=6,this._$AN=void 0,this._$AM=t,this.options=r}get _$AU(){return this._$AM._$AU}_$AI(e){Z(this,e)}},yt={M:Ue,P:j,A:je,C:1,L:ft,R:xe,D:ht,V:Z,I:ie,H:ee,N:Te,U:Ae,B:Se,F:Ee},mn=Fe.litHtmlPolyfillSupport;mn?.(ue,ie),(Fe.litHtmlVersions??=[]).push("3.3.3");var te=(n,e,t)=>{let r=t?.renderBefore??e,i=r._$litPart$;if(i===void 0){let o=t?.renderBefore??null;r._$litPart$=i=new ie(e.insertBefore(ce(),o),o,void 0,t??{})}return i._$AI(n),i};var $t={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},vt=n=>(...e)=>({_$litDirective$:n,values:e}),Ie=class{constructor(e){}get _$AU(){return this._$AM._$AU}_$AT(e,t,r){this._$Ct=e,this._$AM=t,this._$Ci=r}_$AS(e,t){return this.update(e,t)}update(e,t){return this.render(...t)}};var{I:gn}=yt,bt=n=>n;var wt=()=>document.createComment(""),oe=(n,e,t)=>{let r=n._$AA.parentNode,i=e===void 0?n._$AB:e._$AA;if(t===void 0){let o=r.insertBefore(wt(),i),a=r.insertBefore(wt(),i);t=new gn(o,a,n,n.options)}else{let o=t._$AB.nextSibling,a=t._$AM,f=a!==n;if(f){let d;t._$AQ?.(n),t._$AM=n,t._$AP!==void 0&&(d=n._$AU)!==a._$AU&&t._$AP(d)}if(o!==i||f){let d=t._$AA;for(;d!==o;){let h=bt(d).nextSibling;bt(r).insertBefore(d,i),d=h}}}return t},G=(n,e,t=n)=>(n._$AI(e,t),n),fn={},_t=(n,e=fn)=>n._$AH=e,kt=n=>n._$AH,Re=n=>{n._$AR(),n._$AA.remove()};var xt=(n,e,t)=>{let r=new Map;for(let i=e;i<=t;i++)r.set(n[i],i);return r},he=vt(class extends Ie{constructor(n){if(super(n),n.type!==$t.CHILD)throw Error("repeat() can only be used in text expressions")}dt(n,e,t){let r;t===void 0?t=e:e!==void 0&&(r=e);let i=[],o=[],a=0;for(let f of n)i[a]=r?r(f,a):a,o[a]=t(f,a),a++;return{values:o,keys:i}}render(n,e,t){return this.dt(n,e,t).values}update(n,[e,t,r]){let i=kt(n),{values:o,keys:a}=this.dt(e,t,r);if(!Array.isArray(i))return this.ut=a,o;let f=this.ut??=[],d=[],h,u,m=0,b=i.length-1,w=0,k=o.length-1;for(;m<=b&&w<=k;)if(i[m]===null)m++;else if(i[b]===null)b--;else if(f[m]===a[w])d[w]=G(i[m],o[w]),m++,w++;else if(f[b]===a[k])d[k]=G(i[b],o[k]),b--,k--;else if(f[m]===a[k])d[k]=G(i[m],o[k]),oe(n,d[k+1],i[m]),m++,k--;else if(f[b]===a[w])d[w]=G(i[b],o[w]),oe(n,i[m],i[b]),b--,w++;else if(h===void 0&&(h=xt(a,w,k),u=xt(f,m,b)),h.has(f[m]))if(h.has(f[b])){let C=u.get(a[w]),g=C!==void 0?i[C]:null;if(g===null){let v=oe(n,i[m]);G(v,o[w]),d[w]=v}else d[w]=G(g,o[w]),oe(n,i[m],g),i[C]=null;w++}else Re(i[b]),b--;else Re(i[m]),m++;for(;w<=k;){let C=oe(n,d[k+1]);G(C,o[w]),d[w++]=C}for(;m<=b;){let C=i[m++];C!==null&&Re(C)}return this.ut=a,_t(n,d),X}});(!globalThis.EventTarget||!globalThis.Event)&&console.error(`
  PartySocket requires a global 'EventTarget' class to be available!
  You can polyfill this global by adding this to your code before any partysocket imports: 
  
  \`\`\`
  import 'partysocket/event-target-polyfill';
  \`\`\`
  Please file an issue at https://github.com/partykit/partykit if you're still having trouble.
`);var Tt=class extends Event{message;error;constructor(n,e){super("error",e),this.message=n.message,this.error=n}},At=class extends Event{code;reason;wasClean=!0;constructor(n=1e3,e="",t){super("close",t),this.code=n,this.reason=e}},Ge={Event,ErrorEvent:Tt,CloseEvent:At};function yn(n,e){if(!n)throw new Error(e)}function $n(n){return new n.constructor(n.type,n)}function vn(n){return"data"in n?new MessageEvent(n.type,n):"code"in n||"reason"in n?new At(n.code||1999,n.reason||"unknown reason",n):"error"in n?new Tt(n.error,n):new Event(n.type,n)}var bn=typeof process<"u"&&typeof process.versions?.node<"u",wn=typeof navigator<"u"&&navigator.product==="ReactNative",Ce=bn||wn?vn:$n,ne={maxReconnectionDelay:1e4,minReconnectionDelay:3e3,minUptime:5e3,reconnectionDelayGrowFactor:1.3,connectionTimeout:4e3,maxRetries:Number.POSITIVE_INFINITY,maxEnqueuedMessages:Number.POSITIVE_INFINITY,startClosed:!1,debug:!1},St=!1;function _n(){}var Et=class K extends EventTarget{_ws;_retryCount=-1;_uptimeTimeout;_connectTimeout;_shouldReconnect=!0;_connectLock=!1;_binaryType="blob";_closeCalled=!1;_didWarnAboutClosedSend=!1;_messageQueue=[];_debugLogger=console.log.bind(console);_url;_protocols;_options;constructor(e,t,r={}){super(),this._url=e,this._protocols=t,this._options=r,this._options.startClosed&&(this._shouldReconnect=!1),this._options.debugLogger&&(this._debugLogger=this._options.debugLogger),this._connect()}static get CONNECTING(){return 0}static get OPEN(){return 1}static get CLOSING(){return 2}static get CLOSED(){return 3}get CONNECTING(){return K.CONNECTING}get OPEN(){return K.OPEN}get CLOSING(){return K.CLOSING}get CLOSED(){return K.CLOSED}get binaryType(){return this._ws?this._ws.binaryType:this._binaryType}set binaryType(e){this._binaryType=e,this._ws&&(this._ws.binaryType=e)}get retryCount(){return Math.max(this._retryCount,0)}get bufferedAmount(){return this._messageQueue.reduce((e,t)=>(typeof t=="string"?e+=t.length:t instanceof Blob?e+=t.size:e+=t.byteLength,e),0)+(this._ws?this._ws.bufferedAmount:0)}get extensions(){return this._ws?this._ws.extensions:""}get protocol(){return this._ws?this._ws.protocol:""}get readyState(){return this._closeCalled?K.CLOSED:this._ws?this._ws.readyState:this._options.startClosed?K.CLOSED:K.CONNECTING}get url(){return this._ws?this._ws.url:""}get shouldReconnect(){return this._shouldReconnect}onclose=null;onerror=null;onmessage=null;onopen=null;close(e=1e3,t){if(this._closeCalled=!0,this._shouldReconnect=!1,this._clearTimeouts(),!this._ws){this._debug("close enqueued: no ws instance");return}if(this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING){this._debug("close: already closing or closed");return}this._disconnect(e,t)}reconnect(e,t){this._shouldReconnect=!0,this._closeCalled=!1,this._didWarnAboutClosedSend=!1,this._retryCount=-1,!this._ws||this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING?this._connect():(this._disconnect(e,t),this._connect())}send(e){if(this._ws&&this._ws.readyState===this.OPEN)return this._debug("send",e),this._ws.send(e),!0;this._closeCalled&&!this._didWarnAboutClosedSend&&(this._didWarnAboutClosedSend=!0,console.warn("ReconnectingWebSocket: send() was called after close(). The message has been buffered, but it will only be delivered if reconnect() is called on this socket. If this socket has been discarded, the message is lost — this usually means a stale socket reference is being used."));let{maxEnqueuedMessages:t=ne.maxEnqueuedMessages}=this._options;return this._messageQueue.length<t&&(this._debug("enqueue",e),this._messageQueue.push(e)),!1}drainQueuedMessages(){let e=this._messageQueue;return this._messageQueue=[],e}_debug(...e){this._options.debug&&this._debugLogger("RWS>",...e)}_getNextDelay(){let{reconnectionDelayGrowFactor:e=ne.reconnectionDelayGrowFactor,minReconnectionDelay:t=ne.minReconnectionDelay,maxReconnectionDelay:r=ne.maxReconnectionDelay}=this._options,i=0;return this._retryCount>0&&(i=t*e**(this._retryCount-1),i>r&&(i=r)),this._debug("next delay",i),i}_wait(){return new Promise(e=>{setTimeout(e,this._getNextDelay())})}_getNextProtocols(e){if(!e)return Promise.resolve(null);if(typeof e=="string"||Array.isArray(e))return Promise.resolve(e);if(typeof e=="function"){let t=e();if(!t)return Promise.resolve(null);if(typeof t=="string"||Array.isArray(t))return Promise.resolve(t);if(t.then)return t}throw Error("Invalid protocols")}_getNextUrl(e){if(typeof e=="string")return Promise.resolve(e);if(typeof e=="function"){let t=e();if(typeof t=="string")return Promise.resolve(t);if(t.then)return t}throw Error("Invalid URL")}_connect(){if(this._connectLock||!this._shouldReconnect)return;this._connectLock=!0;let{maxRetries:e=ne.maxRetries,connectionTimeout:t=ne.connectionTimeout}=this._options;if(this._retryCount>=e){this._debug("max retries reached",this._retryCount,">=",e),this._connectLock=!1;return}this._retryCount++,this._debug("connect",this._retryCount),this._removeListeners(),this._wait().then(()=>Promise.all([this._getNextUrl(this._url),this._getNextProtocols(this._protocols||null)])).then(([r,i])=>{if(this._closeCalled){this._connectLock=!1;return}!this._options.WebSocket&&typeof WebSocket>"u"&&!St&&(console.error(`‼️ No WebSocket implementation available. You should define options.WebSocket. 

For example, if you're using node.js, run \`npm install ws\`, and then in your code:

import PartySocket from 'partysocket';
import WS from 'ws';

const partysocket = new PartySocket({
  host: "127.0.0.1:1999",
  room: "test-room",
  WebSocket: WS
});

`),St=!0);let o=this._options.WebSocket||WebSocket;this._debug("connect",{url:r,protocols:i}),this._ws=i?new o(r,i):new o(r),this._ws.binaryType=this._binaryType,this._connectLock=!1,this._addListeners(),this._connectTimeout=setTimeout(()=>this._handleTimeout(),t)}).catch(r=>{this._connectLock=!1,this._handleError(new Ge.ErrorEvent(Error(r.message),this))})}_handleTimeout(){this._debug("timeout event"),this._handleError(new Ge.ErrorEvent(Error("TIMEOUT"),this))}_disconnect(e=1e3,t){if(this._clearTimeouts(),!!this._ws){this._removeListeners();try{(this._ws.readyState===this.OPEN||this._ws.readyState===this.CONNECTING)&&this._ws.close(e,t),this._handleClose(new Ge.CloseEvent(e,t,this))}catch{}}}_acceptOpen(){this._debug("accept open"),this._retryCount=0}_handleOpen=e=>{this._debug("open event");let{minUptime:t=ne.minUptime}=this._options;clearTimeout(this._connectTimeout),this._uptimeTimeout=setTimeout(()=>this._acceptOpen(),t),yn(this._ws,"WebSocket is not defined"),this._ws.binaryType=this._binaryType,this._messageQueue.forEach(r=>{this._ws?.send(r)}),this._messageQueue=[],this.onopen&&this.onopen(e),this.dispatchEvent(Ce(e))};_handleMessage=e=>{this._debug("message event"),this.onmessage&&this.onmessage(e),this.dispatchEvent(Ce(e))};_handleError=e=>{this._debug("error event",e.message),this._disconnect(void 0,e.message==="TIMEOUT"?"timeout":void 0),this.onerror&&this.onerror(e),this._debug("exec error listeners"),this.dispatchEvent(Ce(e)),this._connect()};_handleClose=e=>{this._debug("close event"),this._clearTimeouts(),this._options.shouldReconnectOnClose&&!this._options.shouldReconnectOnClose(e)&&(this._shouldReconnect=!1),this._shouldReconnect&&this._connect(),this.onclose&&this.onclose(e),this.dispatchEvent(Ce(e))};_removeListeners(){this._ws&&(this._debug("removeListeners"),this._ws.removeEventListener("open",this._handleOpen),this._ws.removeEventListener("close",this._handleClose),this._ws.removeEventListener("message",this._handleMessage),this._ws.removeEventListener("error",this._handleError),this._ws.addEventListener("error",_n))}_addListeners(){this._ws&&(this._debug("addListeners"),this._ws.addEventListener("open",this._handleOpen),this._ws.addEventListener("close",this._handleClose),this._ws.addEventListener("message",this._handleMessage),this._ws.addEventListener("error",this._handleError))}_clearTimeouts(){clearTimeout(this._connectTimeout),clearTimeout(this._uptimeTimeout)}};var It={not_configured:503,unauthorized:401,forbidden:403,rate_limited:429,payload_too_large:413,not_found:404,method_not_allowed:405,bad_request:400,conflict:409,internal:500};var kn=It,M=class extends Error{status;code;constructor(e,t,r,i){super(r,i),this.name="HighwaterError",this.status=e,this.code=t}},xn=7e3,Sn=2e4,ge=class{baseUrl;#t;#r;#n;constructor(e){this.baseUrl=e.baseUrl.replace(/\/+$/,""),this.#t=e.token;let t=e.fetch??globalThis.fetch;this.#r=(r,i)=>t(r,i),this.#n=e.WebSocket}createSession(e={}){return this.#e("POST","/v1/sessions",e)}listSessions(e={}){return this.#e("GET",`/v1/sessions${me(e)}`)}getSession(e){return this.#e("GET",I(e))}patchSession(e,t){return this.#e("PATCH",I(e),t)}sendMessage(e,t,r=Rt()){return this.#e("POST",`${I(e)}/messages`,{text:t,idempotencyKey:r})}stop(e){return this.#e("POST",`${I(e)}/stop`)}decideApproval(e,t,r,i={}){return this.#e("POST",`${I(e)}/approvals/${encodeURIComponent(t)}`,{decision:r,...i})}dismissRecoveryNotice(e,t){return this.#e("POST",`${I(e)}/recovery-notice/dismiss`,{atSeq:t})}events(e,t=0,r=500){return this.#e("GET",`${I(e)}/events${me({after:t,limit:r})}`)}transcript(e,t={}){return this.#e("GET",`${I(e)}/transcript${me(t)}`)}context(e){return this.#e("GET",`${I(e)}/context`)}verify(e){return this.#e("GET",`${I(e)}/verify`)}async exportNdjson(e){return(await this.#s("GET",`${I(e)}/export`)).text()}files(e,t={}){return this.#e("GET",`${I(e)}/files${me(t)}`)}providers(){return this.#e("GET","/v1/providers")}async file(e,t){let r=t.split("/").map(encodeURIComponent).join("/");return(await this.#s("GET",`${I(e)}/files/${r}`)).text()}async archive(e,t,r={}){return(await this.#s("GET",`${I(e)}/archive/${t}${me(r)}`)).text()}inbox(e,t){return this.#e("POST",`${I(e)}/inbox`,t)}fork(e,t){return this.#e("POST",`${I(e)}/fork`,{throughSeq:t})}createTrigger(e,t){return this.#e("POST",`${I(e)}/triggers`,t)}triggers(e){return this.#e("GET",`${I(e)}/triggers`)}async deleteTrigger(e,t){await this.#s("DELETE",`${I(e)}/triggers/${encodeURIComponent(t)}`)}runs(e){return this.#e("GET",`${I(e)}/runs`)}resume(e,t,r){return this.#e("POST",`${I(e)}/runs/${encodeURIComponent(t)}/resume`,r)}records(e){return this.#e("GET",`${I(e)}/records`)}record(e,t){return this.#e("GET",`${I(e)}/records/${encodeURIComponent(t)}`)}putRecord(e,t,r){return this.#e("PUT",`${I(e)}/records/${encodeURIComponent(t)}`,r)}appendRecordEntry(e,t,r){return this.#e("POST",`${I(e)}/records/${encodeURIComponent(t)}/entries`,r)}createTicket(e){return this.#e("POST",`${I(e)}/tickets`)}async#e(e,t,r){return await(await this.#s(e,t,r)).json()}async#s(e,t,r){let i={};this.#t&&(i.authorization=`Bearer ${this.#t}`),r!==void 0&&(i["content-type"]="application/json");let o;try{o=await this.#r(`${this.baseUrl}${t}`,{method:e,headers:i,...r===void 0?{}:{body:JSON.stringify(r)}})}catch(h){throw new M(0,"network_error",`${e} ${t}: ${String(h)}`,{cause:h})}if(o.ok)return o;let a=await o.text().catch(()=>""),f=`http_${o.status}`,d=a.slice(0,500)||o.statusText;try{let h=JSON.parse(a);typeof h.error?.code=="string"&&(f=h.error.code),typeof h.error?.message=="string"&&(d=h.error.message)}catch{}throw new M(o.status,f,d)}connect(e,t){let r=this.#n??globalThis.WebSocket;if(!r)throw new Error("no WebSocket implementation: pass `WebSocket` (e.g. from the ws package)");let i=t.auth??(this.#n&&this.#t?"header":"ticket"),o=t.pingEveryMs??xn,a=t.silenceMs??Sn,f=this.baseUrl.replace(/^http/,"ws"),d=this.#t,h=t.after??0,u="connecting",m=!1,b=!1,w=Date.now(),k=0,C=t.ticket,g=new Map,v=S=>{S!==u&&(u=S,t.onState?.(S))},N=()=>{for(let S of g.values())S.reject(new M(0,"disconnected","the socket closed before an answer"));g.clear()},D=()=>{N(),b||v(m?"reconnecting":"connecting")},F=async()=>{let S=`${f}/v1/sessions/${encodeURIComponent(e)}/ws?after=${h}`;if(i==="ticket"){let P=C;if(C=void 0,!P)try{P=(await this.createTicket(e)).ticket}catch(T){let q=T;throw[401,403,404,503].includes(q.status)&&U(q),T}S+=`&ticket=${encodeURIComponent(P)}`}return S},_=i==="header"&&d?function(P){return new r(P,{headers:{authorization:`Bearer ${d}`}})}:r,y=new Et(F,null,{WebSocket:_,minReconnectionDelay:t.minDelayMs??250,maxReconnectionDelay:t.maxDelayMs??1e4,reconnectionDelayGrowFactor:2,connectionTimeout:1e4}),U=S=>{b||(b=!0,clearInterval(O),y.close(1e3,"gave up"),N(),v("closed"),t.onFatal?.(S))},W=S=>{w=Date.now();let P=typeof S=="string"?S:new TextDecoder().decode(S),T;try{T=JSON.parse(P)}catch{return}if(T.type!=="pong"){if(T.type==="event"){let q=T.event.seq;if(q<=h)return;if(q!==h+1){D(),y.reconnect(4e3,"gap");return}h=q}else if(T.type==="ready")m=!0,v("open");else if((T.type==="ack"||T.type==="error")&&T.id!==void 0&&g.has(T.id)){let q=g.get(T.id);g.delete(T.id),T.type==="ack"?q.resolve(T.result):q.reject(new M(kn[T.error.code]??0,T.error.code,T.error.message));return}t.onFrame(T)}};y.addEventListener("open",()=>{w=Date.now()}),y.addEventListener("message",S=>W(S.data)),y.addEventListener("close",D);let O=setInterval(()=>{b||y.readyState!==1||(Date.now()-w>a?(D(),y.reconnect(4001,"silent")):y.send('{"type":"ping"}'))},o);return{get lastSeq(){return h},get state(){return u},get retries(){return Math.max(0,y.retryCount)},send(S){if(y.readyState!==1||u!=="open")return Promise.reject(new M(0,"disconnected","the socket is not open"));let P=`c${++k}`,T=S.type==="message"&&!S.idempotencyKey?{...S,idempotencyKey:Rt()}:S;return new Promise((q,$e)=>{g.set(P,{resolve:q,reject:$e}),y.send(JSON.stringify({...T,id:P}))})},close(){b||(b=!0,clearInterval(O),N(),y.close(1e3,"client closed"),v("closed"))}}}};function Rt(){let n=crypto.getRandomValues(new Uint8Array(16));return`k-${Array.from(n,e=>e.toString(16).padStart(2,"0")).join("")}`}function I(n){return`/v1/sessions/${encodeURIComponent(n)}`}function me(n){let e=new URLSearchParams;for(let[r,i]of Object.entries(n))i!==void 0&&e.set(r,String(i));let t=e.toString();return t?`?${t}`:""}var Pe=class{items=[];spans=[];marks=[];lastSeq=0;#t=new Map;#r=new Map;#n=new Map;#e=null;add(e){if(e.seq<=this.lastSeq)return!1;this.lastSeq=e.seq;let t=Date.parse(e.at),r=e.content,i=e.actions??{},o=i.stateDelta??{},a=u=>this.items.push({...u,rev:0,at:e.at});if(r?.type==="text"&&(e.author==="user"||e.author==="model"))a({kind:"message",seq:e.seq,role:e.author==="user"?"user":"assistant",text:r.text,...e.source?{source:e.source}:{},...e.turnId?{turnId:e.turnId}:{}}),e.author==="user"&&e.turnId&&!this.#e&&(this.#e={kind:"turn",key:`turn:${e.turnId}`,label:r.text.slice(0,80),start:t,seq:e.seq},this.spans.push(this.#e));else if(r?.type==="thinking")a({kind:"thinking",seq:e.seq,text:r.text});else if(r?.type==="functionCall"){let u={kind:"tool",seq:e.seq,callId:r.callId,tool:r.name,args:r.args,state:"pending",rev:0,at:e.at};this.#t.set(r.callId,u),this.#r.set(r.callId,r.name),this.items.push(u)}else r?.type==="error"&&(a({kind:"error",seq:e.seq,code:r.code,message:r.message}),this.marks.push({kind:"error",at:t,label:`${r.code}: ${r.message}`,seq:e.seq}));if(i.permissionRequest){let u=this.#t.get(i.permissionRequest.callId);u&&this.#s(u,{state:"waiting_approval",requestId:i.permissionRequest.requestId}),this.#i({kind:"approval",key:`approval:${i.permissionRequest.requestId}`,label:`approval: ${i.permissionRequest.tool}`,start:t,seq:e.seq})}if(i.permissionDecision){let u=i.permissionDecision.requestId;if(i.permissionDecision.decision==="approve")for(let m of this.#t.values())m.requestId===u&&m.state==="waiting_approval"&&this.#s(m,{state:"pending"});this.#o(`approval:${u}`,t,i.permissionDecision.decision)}if(i.toolDispatch){let u=this.#t.get(i.toolDispatch.callId);u&&u.state!=="ok"&&this.#s(u,{state:"running",startedAt:t}),this.#i({kind:"tool",key:`tool:${i.toolDispatch.callId}`,label:i.toolDispatch.tool,start:t,seq:e.seq})}if(r?.type==="functionResponse"){let u=this.#t.get(r.callId);u&&this.#s(u,{state:r.status,response:r.response,endedAt:t,...i.toolRecovery?{recovery:i.toolRecovery.strategy}:{}}),this.#o(`tool:${r.callId}`,t,r.status)}if(i.modelRequest&&e.invocationId){let u=i.modelRequest.purpose,m=`model:${e.invocationId}`;this.#n.has(m)||this.#i({kind:"model",key:m,label:u==="compaction"?"compaction call":`model call (~${i.modelRequest.estimatedTokens} tokens)`,start:t,seq:e.seq}),this.#n.has(`attempt:${e.invocationId}`)||this.#i({kind:"attempt",key:`attempt:${e.invocationId}`,label:"attempt 1",start:t,seq:e.seq})}let f=o.modelAttempt;if(f){this.#o(`attempt:${f.invocationId}`,t,f.code);let u=Date.parse(f.retryAt);this.#i({kind:"attempt",key:`attempt:${f.invocationId}`,label:`attempt ${f.attempt+1}`,start:Number.isFinite(u)?Math.max(t,u):t,seq:e.seq}),f.code==="restart"&&this.marks.push({kind:"restart",at:t,label:"restart: call re-issued",seq:e.seq})}if(i.tokenUsage&&e.invocationId&&(this.#o(`attempt:${e.invocationId}`,t,"ok"),this.#o(`model:${e.invocationId}`,t,String(o.finishReason??"answered"))),o.checkpoint){let u=o.checkpoint;this.marks.push({kind:"compaction",at:t,label:`checkpoint through seq ${u.throughSeq??"?"}`,seq:e.seq})}let d=o.recoveryNotice;if(d&&(a({kind:"recovery",seq:e.seq,rerun:d.rerun,needsReview:d.needsReview}),this.marks.push({kind:"recovery",at:t,label:`recovery: ${d.rerun.length} re-run, ${d.needsReview.length} need review`,seq:e.seq})),o.runStarted?.cause==="recovery"&&this.marks.push({kind:"restart",at:t,label:"run taken over after a restart",seq:e.seq}),i.turnClose){a({kind:"turn",seq:e.seq,turnId:e.turnId,reason:i.turnClose.reason});for(let u of this.#n.values())u.end===void 0&&(u.end=t);this.#n.clear(),this.#e&&(this.#e.end=t,this.#e.outcome=i.turnClose.reason,this.#e=null)}return!0}toolOf(e){return this.#r.get(e)}#s(e,t){Object.assign(e,t),e.rev++}#i(e){this.spans.push(e),this.#n.set(e.key,e)}#o(e,t,r){let i=this.#n.get(e);i&&(i.end=Math.max(i.start,t),i.outcome=r,this.#n.delete(e))}};function Ct(n,e){let t=`${e.invocationId}:${e.kind}`,r=n.get(t),i=e.attempt??1;if(!(r&&i<r.attempt))if(e.replace||!r||i>r.attempt){for(let[o,a]of n)a.invocationId===e.invocationId&&a.attempt<i&&n.delete(o);n.set(t,{invocationId:e.invocationId,attempt:i,kind:e.kind,text:e.text})}else r.text+=e.text}function V(n){return n<1e3?`${Math.round(n)} ms`:n<6e4?`${(n/1e3).toFixed(1)} s`:n<36e5?`${Math.floor(n/6e4)} min ${String(Math.round(n%6e4/1e3)).padStart(2,"0")} s`:`${Math.floor(n/36e5)} h ${Math.round(n%36e5/6e4)} min`}function qe(n){return n<1024?`${n} B`:n<1024*1024?`${(n/1024).toFixed(1)} KiB`:`${(n/1024/1024).toFixed(1)} MiB`}function Pt(n){let e=n.actions??{};if(n.content)return n.content.type;for(let r of["permissionRequest","permissionDecision","toolDispatch","toolRecovery","modelRequest","turnClose","tokenUsage"])if(e[r])return r;let t=Object.keys(e.stateDelta??{});return t.length?`stateDelta.${t[0]}`:"event"}var Ke=[{kind:"turn",label:"Turns"},{kind:"model",label:"Model calls"},{kind:"attempt",label:"Attempts"},{kind:"tool",label:"Tool calls"},{kind:"approval",label:"Approvals"},{kind:"marks",label:"Events"}],Y=30,Ye=96,se=22;function Tn(n,e){let t=[1,2,5,10,15,30,60,120,300,600,900,1800,3600,7200,21600,43200,86400].map(r=>r*1e3);return t.find(r=>n/r<=e)??t.at(-1)}function An(n,e){let t=a=>n.filter(f=>f.kind===a),r=a=>{let f=a.map(u=>[u.start,u.end??e]).sort((u,m)=>u[0]-m[0]),d=0,h=null;for(let[u,m]of f)!h||u>h[1]?(h&&(d+=h[1]-h[0]),h=[u,m]):h[1]=Math.max(h[1],m);return h&&(d+=h[1]-h[0]),d},o=t("attempt").filter(a=>a.outcome&&a.outcome!=="ok").length;return[{kind:"turn",label:"Turns open",ms:r(t("turn")),count:t("turn").length},{kind:"model",label:"Model calls",ms:r(t("model")),count:t("model").length,...o?{extra:`${o} failed attempt${o===1?"":"s"} retried`}:{}},{kind:"tool",label:"Tool calls",ms:r(t("tool")),count:t("tool").length},{kind:"approval",label:"Waiting for approval",ms:r(t("approval")),count:t("approval").length}]}function qt(n,e,t,r){if(n.length===0&&e.length===0)return c`<p class="muted empty">Nothing has happened yet: send a message and the timeline fills in.</p>`;let i=Math.min(...n.map(g=>g.start),...e.map(g=>g.at)),o=Math.max(i+10,...n.map(g=>g.end??t),...e.map(g=>g.at)),a=Math.max(120,r-Ye-12),f=g=>Ye+(g-i)/(o-i)*a,d=se+Ke.length*Y+4,h=Tn(o-i,Math.max(2,Math.floor(a/90))),u=[];for(let g=0;g<=o-i;g+=h)u.push(g);let m=g=>se+Ke.findIndex(v=>v.kind===g)*Y,b=g=>{let v=m(g.kind)+6,N=f(g.start),D=Math.max(2,f(g.end??t)-N),F=(g.end??t)-g.start,_=g.end===void 0?"open":g.outcome??"";return pe`<rect class="bar ${g.kind}" data-outcome=${_} x=${N.toFixed(1)} y=${v} width=${D.toFixed(1)} height=${Y-12} rx="2"><title>${g.label} — ${V(F)}${g.end===void 0?" so far":""}${g.outcome?` (${g.outcome})`:""} · seq ${g.seq}</title></rect>`},w=g=>{let v=f(g.at),N=m("marks")+Y/2;return pe`<g class="mark ${g.kind}"><path d="M${v.toFixed(1)} ${N-7} l6 7 l-6 7 l-6 -7 z"></path><title>${g.label} · seq ${g.seq}</title></g>`},k=An(n,t),C=o-i;return c`
    <figure class="timeline">
      <svg width=${r} height=${d} role="img" aria-label=${`Timeline over ${V(C)}: ${k.filter(g=>g.count).map(g=>`${g.label.toLowerCase()} ${V(g.ms)}`).join(", ")}`}>
        ${u.map(g=>pe`<line class="tick" x1=${f(i+g)} x2=${f(i+g)} y1=${se-4} y2=${d}></line>
            <text class="tick-label" x=${f(i+g)+3} y=${se-8}>+${V(g)}</text>`)}
        ${Ke.map((g,v)=>pe`<text class="lane-label" x="4" y=${se+v*Y+Y/2+4}>${g.label}</text>
            <line class="lane" x1=${Ye} x2=${r} y1=${se+(v+1)*Y} y2=${se+(v+1)*Y}></line>`)}
        ${n.map(b)} ${e.map(w)}
      </svg>
      <figcaption>
        <strong>Where the time went</strong> (${V(C)} from first to last event)
        <ul class="totals">
          ${k.map(g=>c`<li data-kind=${g.kind}>
              <span class="swatch ${g.kind}"></span>${g.label}: <strong>${V(g.ms)}</strong>
              <span class="muted">(${g.count}${g.extra?`; ${g.extra}`:""})</span>
            </li>`)}
          <li><span class="swatch marks"></span>Compactions, recoveries, restarts, errors: ${e.length}</li>
        </ul>
      </figcaption>
    </figure>
  `}var En=5e3,Lt=400,ze=100,In=400,B=[{id:"transcript",label:"Transcript"},{id:"context",label:"Context"},{id:"log",label:"Log"},{id:"files",label:"Files"},{id:"timeline",label:"Timeline"}];function Nt(n){let{client:e,id:t,root:r,handleAuth:i,errorText:o}=n,a=new Pe,f=new Map,d=new Map,h=null,u=null,m="connecting",b=null,w="",k=0,C=!1,g=!1,v=et(),N=!1,D=n.draft??"",F=null,_="",y=-1,U=null,W=null,O="",S="idle",P=null,T,q="",$e=-1,H=null;function et(){let s=location.hash.slice(1);return B.some(l=>l.id===s)?s:"transcript"}let tt=()=>{v=et(),He(),A()},ve=()=>A();window.addEventListener("hashchange",tt),window.addEventListener("online",ve),window.addEventListener("offline",ve);function A(){!k&&!C&&(k=requestAnimationFrame(zt))}async function Oe(s,l){try{let p=s();if(p)return await p}catch(p){if(!(p instanceof M&&p.code==="disconnected"))throw p}return l()}async function Wt(s){let l=s.querySelector("textarea"),p=l.value;if(!p.trim())return;let x=n.randomKey();N=!0,w="",A();try{await Oe(()=>u?.send({type:"message",text:p,idempotencyKey:x}),()=>e.sendMessage(t,p,x)),l.value===p&&(l.value=""),D=""}catch(R){i(R)||(w=`Not sent: ${o(R)}`)}finally{N=!1,A(),l.focus()}}async function Ft(){try{re(await Oe(()=>u?.send({type:"stop"}),()=>e.stop(t)))}catch(s){i(s)||(w=`Stop failed: ${o(s)}`),A()}}async function Ut(s){let l=r.querySelector("#message"),p=l?.value.trim()??"";try{await e.resume(t,s.runId,{waitId:s.waitId,...p?{text:p}:{}}),l&&(l.value="")}catch(x){i(x)||(w=`Resume failed: ${o(x)}`),A()}}async function nt(s,l,p){try{re(await Oe(()=>u?.send({type:"approval",requestId:s,decision:l,argsDigest:p}),()=>e.decideApproval(t,s,l,{argsDigest:p})))}catch(x){if(i(x))return;w=x instanceof M&&x.status===409?`Not decided: ${x.message}. Reload to review the call again.`:`Decision failed: ${o(x)}`,A()}}async function jt(s){try{re(await e.dismissRecoveryNotice(t,s))}catch(l){if(i(l))return;l instanceof M&&l.status===409?re(await e.getSession(t)):w=`Dismiss failed: ${o(l)}`,A()}}async function Vt(s){s.preventDefault();try{let l=URL.createObjectURL(new Blob([await e.exportNdjson(t)],{type:"application/x-ndjson"})),p=document.createElement("a");p.href=l,p.download=`highwater-${t.slice(0,12)}.ndjson`,p.click(),setTimeout(()=>URL.revokeObjectURL(l),1e4)}catch(l){i(l)||(w=`Export failed: ${o(l)}`),A()}}async function Bt(){S="running",A();try{S=await e.verify(t)}catch(s){S=`verify failed: ${o(s)}`}A()}function He(){v==="context"&&st(),v==="log"&&!U&&be(null),v==="files"&&we()}async function st(){let s=h?.highWater??0;if(y!==s){y=s;try{F=await e.context(t),_=""}catch(l){i(l)||(_=o(l))}A()}}async function be(s){try{let l=s??Math.max(0,(h?.highWater??0)-ze);U=await e.events(t,l,ze),W=l,O=""}catch(l){i(l)||(O=o(l))}A()}async function we(s=!1){let l=h?.highWater??0;if(!(!s&&$e===l)){$e=l;try{let p=await e.files(t,s&&T?{after:T}:{});P=s&&P?[...P,...p.files]:p.files,T=p.next,q=""}catch(p){i(p)||(q=o(p))}A()}}async function Gt(s){H={path:s,content:null},A();try{H={path:s,content:await e.file(t,s)}}catch(l){i(l)||(H={path:s,content:null,error:o(l)})}A()}function re(s){h=s,document.title=`${s.title||"Untitled session"} — highwater`,A()}function Kt(s){if(s.type==="ready"||s.type==="session")s.type==="ready"&&f.clear(),re(s.session);else if(s.type==="event"){let l=s.event;a.add(l),l.invocationId&&(l.content?.type==="text"||l.content?.type==="thinking")&&f.delete(`${l.invocationId}:${l.content.type}`),l.actions?.turnClose&&(f.clear(),v==="context"&&st(),v==="files"&&we()),l.content?.type==="functionResponse"&&v==="files"&&we(),A()}else s.type==="delta"?(Yt(s),A()):s.type==="error"&&(w=`${s.error.code}: ${s.error.message}`,A())}function Yt(s){Ct(f,s)}function zt(){if(k=0,C)return;let s=window.innerHeight+window.scrollY>=document.body.scrollHeight-120,l=performance.now();te(Jt(),r),window.__hwDraws?.push(performance.now()-l),s&&v==="transcript"&&Qt()&&window.scrollTo({top:document.body.scrollHeight})}let rt=0;function Qt(){let s=a.lastSeq!==rt;return rt=a.lastSeq,s||f.size>0}function Jt(){if(b)return c`<a href="/" data-nav class="back">← Sessions</a>
        <p class="error" role="alert">${b}</p>`;let s=h,l=Math.max(s?.highWater??0,a.lastSeq);return c`
      <a href="/" data-nav class="back">← Sessions</a>
      <header class="session-head">
        <h1>${s?s.title||"Untitled session":"Session"}</h1>
        <div class="meta">
          ${s?Je(s.status):$} ${s?Xe(s):$}
          <span class="muted count" aria-live="off">${l} events</span>
          ${Rn(s)}
          ${en()}
        </div>
      </header>
      ${tn()}
      <p class="error" role="alert">${w}</p>
      <div class="tabs" role="tablist" aria-label="Session views" @keydown=${Zt}>
        ${B.map(p=>c`<button
            type="button"
            role="tab"
            id=${`tab-${p.id}`}
            aria-controls=${`panel-${p.id}`}
            aria-selected=${p.id===v?"true":"false"}
            tabindex=${p.id===v?"0":"-1"}
            @click=${()=>it(p.id)}
          >${p.label}</button>`)}
      </div>
      <section class="panel" role="tabpanel" id=${`panel-${v}`} aria-labelledby=${`tab-${v}`}>
        ${v==="transcript"?sn():$} ${v==="context"?ln():$}
        ${v==="log"?dn():$} ${v==="files"?un():$}
        ${v==="timeline"?qt(a.spans,a.marks,Date.now(),Xt()):$}
      </section>
      ${nn()}
    `}function Xt(){let s=r.querySelector(".panel");return Math.max(280,Math.min((s?.clientWidth??r.clientWidth)-2||800,1200))}function it(s){s!==v&&(history.replaceState(null,"",s==="transcript"?location.pathname:`#${s}`),v=s,He(),A())}function Zt(s){let l=B.findIndex(x=>x.id===v),p=s.key==="ArrowRight"?(l+1)%B.length:s.key==="ArrowLeft"?(l+B.length-1)%B.length:s.key==="Home"?0:s.key==="End"?B.length-1:-1;p<0||(s.preventDefault(),it(B[p].id),requestAnimationFrame(()=>r.querySelector(`#tab-${B[p].id}`)?.focus()))}function en(){let s=m!=="open"&&(!navigator.onLine||(u?.retries??0)>=3),l=m==="open"?"live":s?"offline":m==="reconnecting"?"reconnecting":"connecting";return c`<span class="conn" role="status" data-state=${l}>${l==="live"?"● live":l==="offline"?"○ offline — retrying":l==="reconnecting"?"◌ reconnecting…":"◌ connecting…"}</span>`}function tn(){let s=h?.recoveryNotice;if(!s)return $;let l=p=>c`<li><code>${a.toolOf(p)??"call"}</code> ${p}</li>`;return c`<section class="banner" aria-label="Recovery notice">
      <strong>This session recovered after a restart (event ${s.atSeq}).</strong>
      ${s.rerun.length?c`<p>Re-run (safe to repeat):</p><ul>${s.rerun.map(l)}</ul>`:$}
      ${s.needsReview.length?c`<p>Needs review (the side effect may or may not have happened):</p><ul>${s.needsReview.map(l)}</ul>`:$}
      ${s.reissued?.length?c`<p>${s.reissued.length} model call(s) were issued again.</p>`:$}
      <button type="button" class="dismiss" @click=${()=>{jt(s.atSeq)}}>Dismiss</button>
    </section>`}function nn(){let s=h,l=s?.wait??null;return c`<form
      class="composer"
      @submit=${p=>{p.preventDefault(),Wt(p.currentTarget)}}
    >
      <label for="message" class="sr-only">Message</label>
      <textarea
        id="message"
        rows="3"
        .value=${D}
        @input=${p=>{D=p.target.value}}
        placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
        @keydown=${p=>{p.key==="Enter"&&!p.shiftKey&&!p.isComposing&&(p.preventDefault(),p.currentTarget.form.requestSubmit())}}
      ></textarea>
      <div class="composer-actions">
        <button type="submit" ?disabled=${N}>Send</button>
        <button type="button" class="danger" ?disabled=${!s?.openTurn} @click=${()=>{Ft()}}>Stop</button>
        ${l?c`<button type="button" @click=${()=>{Ut(l)}}>Resume</button>`:$}
      </div>
    </form>`}function sn(){let s=new Map(h?.pendingApprovals.map(E=>[E.requestId,E])),l=a.items,p=g||l.length<=Lt?l:l.slice(-Lt),x=l.length-p.length,R=[...f.values()];return c`
      ${x>0?c`<button type="button" class="link earlier" @click=${()=>{g=!0,A()}}>Show ${x} earlier items</button>`:$}
      ${l.length===0&&R.length===0?c`<p class="muted empty">No messages yet. Write one below; the agent answers here as it works.</p>`:$}
      <ol class="transcript" aria-label="Transcript" aria-busy=${R.length>0?"true":"false"}>
        ${he(p,E=>`${E.kind}:${E.seq}`,E=>rn(E,s))}
      </ol>
      <div class="streaming" aria-hidden="true">
        ${R.map(E=>E.kind==="text"?c`<div class="item msg assistant streaming">
                <div class="who">Assistant${E.attempt>1?c` <span class="muted">(attempt ${E.attempt})</span>`:$}</div>
                <div class="text">${E.text}</div>
              </div>`:c`<details class="item thinking streaming"><summary>Thinking…</summary><pre>${E.text}</pre></details>`)}
      </div>
    `}function rn(s,l){let p=`${s.kind}:${s.seq}`,x=s.kind==="tool"&&s.requestId?l.get(s.requestId):void 0,R=x!==void 0,E=d.get(p),L=s.kind==="tool"&&s.startedAt!==void 0&&s.endedAt===void 0;if(E&&E.rev===s.rev&&E.actionable===R&&!L)return E.tpl;let _e=on(s,x);return d.set(p,{rev:s.rev,actionable:R,tpl:_e}),_e}function on(s,l){switch(s.kind){case"message":return c`<li class="item msg ${s.role}" data-seq=${s.seq}>
          <div class="who">
            ${s.role==="user"?"You":"Assistant"}
            ${s.source&&!["http","ws"].includes(s.source)?c`<span class="muted"> via ${s.source}</span>`:$}
          </div>
          <div class="text">${s.text}</div>
        </li>`;case"thinking":return c`<li class="item thinking" data-seq=${s.seq}>
          <details><summary>Thinking (${s.text.length} chars)</summary><pre>${s.text}</pre></details>
        </li>`;case"tool":return an(s,l);case"error":return c`<li class="item error" role="note" data-seq=${s.seq}>
          <strong>Error (${s.code}): </strong>${s.message}
        </li>`;case"recovery":return c`<li class="item recovery" data-seq=${s.seq}>
          Recovered after a restart: ${s.rerun.length} call(s) re-run, ${s.needsReview.length} need review.
        </li>`;case"turn":return c`<li class="item turn" data-seq=${s.seq} data-reason=${s.reason}>turn ${s.reason}</li>`}}function an(s,l){let p=s.startedAt!==void 0?V((s.endedAt??Date.now())-s.startedAt):void 0,x=Qe(s.args),R=c`<code class="tool-name">${s.tool}</code>
      <span class="badge" data-state=${s.state}>${s.state.replace("_"," ")}</span>
      ${p?c`<span class="muted duration">${p}${s.endedAt===void 0?"…":""}</span>`:$}
      ${s.recovery?c`<span class="badge recovery">${s.recovery==="rerun"?"re-run after restart":"needs review"}</span>`:$}`;if(l){let E=new TextEncoder().encode(JSON.stringify(s.args)??"").length;return c`<li class="item tool approval-card" data-seq=${s.seq} data-state=${s.state}>
        <div class="tool-head">${R}</div>
        <div class="block">
          <span class="label">Arguments, ${qe(E)} · digest <code>${l.argsDigest.slice(0,12)}…</code></span>
          <pre class="args" tabindex="0" aria-label="Arguments of ${s.tool}">${x}</pre>
        </div>
        <div class="approval" role="group" aria-label=${`Approval for ${s.tool}`}>
          <span>This call needs your approval.</span>
          <button type="button" @click=${()=>{nt(l.requestId,"approve",l.argsDigest)}}>Approve</button>
          <button type="button" class="danger" @click=${()=>{nt(l.requestId,"reject",l.argsDigest)}}>
            Reject
          </button>
        </div>
      </li>`}return c`<li class="item tool" data-seq=${s.seq} data-state=${s.state}>
      <details>
        <summary class="tool-head">${R}</summary>
        ${Mt("Arguments",x)} ${s.response!==void 0?Mt("Response",Qe(s.response)):$}
      </details>
    </li>`}function ln(){if(_)return c`<p class="error" role="alert">${_}</p>`;if(!F)return c`<p class="muted">Loading the context…</p>`;let s=F,l=_e=>`${(100*_e/s.contextWindow).toFixed(1)}%`,p=JSON.stringify(s.messages),x=(p.match(/archive:\/\/[0-9a-f]{64}/g)??[]).length,R=h?.usage,E=R&&R.cachedInputTokens>0&&R.inputTokens>0?R.cachedInputTokens/R.inputTokens:null,L=s.estimatedTokens/s.threshold;return c`
      <div class="context">
        <p>
          <strong>${s.estimatedTokens.toLocaleString()}</strong> tokens estimated for the next model call, of a
          compaction threshold of <strong>${s.threshold.toLocaleString()}</strong>
          (${(L*100).toFixed(0)}%); window ${s.contextWindow.toLocaleString()}, ${s.maxOutputTokens.toLocaleString()}
          reserved for output.
        </p>
        <div
          class="meter"
          role="meter"
          aria-label="Context used"
          aria-valuemin="0"
          aria-valuemax=${s.threshold}
          aria-valuenow=${Math.min(s.estimatedTokens,s.threshold)}
          aria-valuetext=${`${s.estimatedTokens} of ${s.threshold} tokens before compaction`}
        >
          <div class="fill ${L>.9?"hot":""}" style="width:${l(Math.min(s.estimatedTokens,s.contextWindow))}"></div>
          <div class="threshold" style="left:${l(s.threshold)}" title="compaction threshold"></div>
          <div class="reserve" style="left:${l(s.contextWindow-s.maxOutputTokens)}" title="reserved for output"></div>
        </div>
        <div class="meter-legend muted">
          <span><span class="swatch fill"></span>estimate</span>
          <span><span class="swatch threshold"></span>threshold: compaction starts here</span>
          <span><span class="swatch reserve"></span>output reserve</span>
        </div>
        <dl class="facts">
          <dt>Checkpoint waterline</dt>
          <dd>
            ${s.checkpoint?c`events 1–${s.checkpoint.throughSeq} are summarised in checkpoint <code>${s.checkpoint.id}</code>;
                  raw from seq ${s.rawFromSeq}`:c`no checkpoint yet: the whole log from seq ${s.rawFromSeq} is sent raw`}
            ${cn(s.checkpoint?.throughSeq??0,h?.highWater??a.lastSeq)}
          </dd>
          <dt>Offloaded results</dt>
          <dd>${x} tool result${x===1?"":"s"} replaced by an archive placeholder</dd>
          <dt>Prompt-cache hit rate</dt>
          <dd>
            ${E!==null?c`${(E*100).toFixed(1)}% of ${R.inputTokens.toLocaleString()} input tokens were cached`:c`<span class="muted">not reported by this provider</span>`}
          </dd>
          <dt>Messages</dt>
          <dd>${s.messages.length} messages, ${qe(new TextEncoder().encode(p).length)}</dd>
        </dl>
        ${s.checkpoint?c`<details><summary>Checkpoint summary</summary><pre>${s.checkpoint.summary}</pre></details>`:$}
        <details><summary>Messages as the next call sends them</summary><pre>${Qe(s.messages)}</pre></details>
      </div>
    `}function cn(s,l){let p=l>0?100*s/l:0;return c`<div class="waterline" aria-hidden="true">
      <div class="summarised" style="width:${p.toFixed(1)}%"></div>
      <span class="muted">seq 1</span><span class="muted right">seq ${l}</span>
    </div>`}function dn(){let s=S,l=s==="idle"?$:s==="running"?c`<span class="verify" role="status">verifying…</span>`:typeof s=="string"?c`<span class="verify bad" role="status">${s}</span>`:s.ok?c`<span class="verify ok" role="status">✓ verified ${s.highWater} events, head <code>${s.headDigest.slice(0,12)}…</code></span>`:c`<span class="verify bad" role="status">✗ ${s.problems.length} problem(s): ${s.problems.slice(0,3).join("; ")}</span>`,p=U,x=p?.events[0]?.seq??0,R=p?.events.at(-1)?.seq??0,E=Math.max(p?.highWater??0,h?.highWater??0);return c`
      <div class="toolbar">
        <button type="button" @click=${()=>{Bt()}}>Verify</button>
        <a href=${`/v1/sessions/${t}/export`} @click=${Vt} download>Export</a>
        ${l}
      </div>
      ${O?c`<p class="error" role="alert">${O}</p>`:$}
      ${p?c`<div class="pager">
              <button type="button" ?disabled=${x<=1} @click=${()=>{be(Math.max(0,(W??0)-ze))}}>Older</button>
              <span class="muted">seq ${x}–${R} of ${E}</span>
              <button type="button" ?disabled=${R>=E} @click=${()=>{be(R)}}>Newer</button>
              <button type="button" class="link" @click=${()=>{be(null)}}>Latest</button>
            </div>
            <div class="table-wrap">
              <table class="log">
                <thead><tr><th>seq</th><th>time</th><th>author</th><th>kind</th><th>digest</th></tr></thead>
                <tbody>
                  ${he(p.events,L=>L.seq,L=>c`<tr data-seq=${L.seq}>
                      <td>${L.seq}</td>
                      <td><time datetime=${L.at}>${new Date(L.at).toLocaleTimeString()}</time></td>
                      <td>${L.author}</td>
                      <td><code>${Pt(L)}</code>${L.modelVisibility==="hidden"?c` <span class="muted">hidden</span>`:$}</td>
                      <td><code title=${L.digest}>${L.digest.slice(0,12)}</code></td>
                    </tr>`)}
                </tbody>
              </table>
            </div>`:c`<p class="muted">Loading the log…</p>`}
    `}function un(){return q?c`<p class="error" role="alert">${q}</p>`:P?P.length===0?c`<p class="muted empty">The workspace is empty: files the agent writes appear here.</p>`:c`
      <div class="files">
        <ul class="file-list" aria-label="Workspace files">
          ${P.map(s=>c`<li>
              <button type="button" class="link" aria-current=${H?.path===s.path?"true":"false"} @click=${()=>{Gt(s.path)}}>${s.path}</button>
              <span class="muted">${qe(s.bytes)} · ${new Date(s.updatedAt).toLocaleString()}</span>
            </li>`)}
          ${T?c`<li><button type="button" class="link" @click=${()=>{we(!0)}}>More</button></li>`:$}
        </ul>
        ${H?c`<article class="file" aria-label=${H.path}>
              <h2><code>${H.path}</code></h2>
              ${H.error?c`<p class="error">${H.error}</p>`:H.content===null?c`<p class="muted">Loading…</p>`:c`<pre class="file-content">${H.content}</pre>`}
            </article>`:c`<p class="muted">Open a file to read it.</p>`}
      </div>
    `:c`<p class="muted">Loading the workspace…</p>`}A(),(async()=>{try{let s=await e.getSession(t);if(C)return;re(s),He(),u=e.connect(t,{after:Math.max(0,s.highWater-En),onFrame:Kt,onState:l=>{m=l,A()},onFatal:l=>{i(l)||(w=`Disconnected: ${o(l)}`),A()}})}catch(s){if(i(s))return;b=s instanceof M&&s.status===404?"No such session.":o(s),A()}})();let pn=setInterval(()=>{(v==="timeline"||m!=="open"||a.items.some(s=>s.kind==="tool"&&s.state==="running"))&&A()},1e3);return()=>{C=!0,u?.close(),u=null,clearInterval(pn),window.removeEventListener("hashchange",tt),window.removeEventListener("online",ve),window.removeEventListener("offline",ve),k&&cancelAnimationFrame(k),te($,r)}}function Qe(n){return typeof n=="string"?n:JSON.stringify(n,null,2)??String(n)}function Mt(n,e){return e.length>In||e.split(`
`).length>12?c`<details class="block"><summary>${n} (${e.length} chars)</summary><pre>${e}</pre></details>`:c`<div class="block"><span class="label">${n}</span><pre>${e}</pre></div>`}function Je(n){return c`<span class="pill" data-status=${n}>${n.replace("_"," ")}</span>`}function Xe(n){return c`<span class="model"
    >${n.model.name}${n.model.provider==="demo"?c`<span class="demo" title="highwater's built-in offline model: deterministic, no API key">demo model</span>`:$}</span
  >`}function Rn(n){let e=n?.placement;return!e||!e.locationHint&&!e.jurisdiction?$:c`<span class="muted placement">${[e.jurisdiction&&`jurisdiction ${e.jurisdiction}`,e.locationHint&&`near ${e.locationHint}`].filter(Boolean).join(" · ")}</span>`}var Me="highwater.token",Ze="highwater.draft.",Cn=3e3,Pn=["wnam","enam","sam","weur","eeur","apac","oc","afr","me"],qn=["write_file","edit_file","delete_file","http_fetch"],Ln="Draft the release notes for version two",Ne=document.getElementById("app"),Mn=document.getElementById("top-actions"),fe=null,ae=()=>{};function Ot(n){history.pushState(null,"",n),ye()}document.addEventListener("click",n=>{let e=n.target.closest?.("a[data-nav]");!e||n.defaultPrevented||n.button!==0||n.metaKey||n.ctrlKey||n.shiftKey||(n.preventDefault(),Ot(e.getAttribute("href")))});window.addEventListener("popstate",ye);function Nn(){return Array.from(crypto.getRandomValues(new Uint8Array(16)),n=>n.toString(16).padStart(2,"0")).join("")}function De(n){return n instanceof M?`${n.code}: ${n.message}`:String(n)}function Le(n){return n instanceof M&&n.status===401?(ae(),ae=()=>{},sessionStorage.removeItem(Me),fe=null,Ht("That token was not accepted. Paste a valid API token."),!0):!1}function ye(){ae(),ae=()=>{};let n=sessionStorage.getItem(Me);if(fe=n?new ge({baseUrl:location.origin,token:n}):null,te(n?c`<button
          type="button"
          class="link"
          @click=${()=>{sessionStorage.removeItem(Me),ye()}}
        >Forget token</button>`:$,Mn),!fe)return Ht();let e=/^\/s\/([^/]+)\/?$/.exec(location.pathname);if(e){let t=decodeURIComponent(e[1]),r=sessionStorage.getItem(Ze+t)??void 0;sessionStorage.removeItem(Ze+t),ae=Nt({client:fe,id:t,root:Ne,handleAuth:Le,errorText:De,randomKey:Nn,...r?{draft:r}:{}})}else ae=On(fe)}function Ht(n){document.title="highwater";let e=n??"",t=()=>te(c`<form
        class="card"
        @submit=${async r=>{r.preventDefault();let o=r.currentTarget.querySelector("#token").value.trim();try{await new ge({baseUrl:location.origin,token:o}).listSessions({limit:1}),sessionStorage.setItem(Me,o),ye()}catch(a){e=a instanceof M&&a.status===401?"That token was not accepted.":De(a),t()}}}
      >
        <h1>Connect</h1>
        <p>
          Paste an API token: one of the Worker's <code>API_TOKENS</code>. <code>npm start</code> prints one as
          <code>highwater: token …</code>. It stays in this tab only (session storage).
        </p>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" required spellcheck="false" />
        <button type="submit">Connect</button>
        <p class="error" role="alert">${e}</p>
      </form>`,Ne);t(),Ne.querySelector("#token")?.focus()}var Dt=()=>({title:"",system:"",provider:"",name:"",contextWindow:"",approve:new Set,approvePaths:"",locationHint:"",jurisdiction:""});function Dn(n){let e=n.approvePaths.split(",").map(o=>o.trim()).filter(Boolean),t=new Set(["write_file","edit_file","delete_file"]),r=[...n.approve].map(o=>e.length&&t.has(o)?{tool:o,match:{path:e}}:{tool:o}),i={};return n.provider&&(i.provider=n.provider),n.name.trim()&&(i.name=n.name.trim()),n.contextWindow.trim()&&(i.contextWindow=Number(n.contextWindow)),{...n.title.trim()?{title:n.title.trim()}:{},...n.system.trim()?{system:n.system}:{},...Object.keys(i).length?{model:i}:{},...r.length?{approvals:r}:{},...n.locationHint?{locationHint:n.locationHint}:{},...n.jurisdiction?{jurisdiction:n.jurisdiction}:{}}}function On(n){document.title="Sessions — highwater";let e=Dt(),t=null,r="",i=!1,o=null,a,f=!1,d=0,h="",u,m=!1,b=()=>{m||te(N(),Ne)};async function w(){try{t=(await n.providers()).providers;let _=t.find(y=>y.isDefault)??t[0];_&&!e.provider&&(e.provider=_.name)}catch(_){Le(_)||(t=[])}b()}async function k(_=!1){try{let y=await n.listSessions(_&&a?{before:a}:{});if(_)o=[...o??[],...y.sessions],a=y.next,f=!0;else{let U=new Set(y.sessions.map(O=>O.id)),W=f?(o??[]).slice(d).filter(O=>!U.has(O.id)):[];o=[...y.sessions,...W],d=y.sessions.length,f||(a=y.next)}h=""}catch(y){Le(y)||(h=De(y))}b()}function C(){e={...Dt(),provider:t?.find(_=>_.demo)?.name??e.provider,title:"Demo: release notes",approve:new Set(["write_file"]),approvePaths:"notes/task.md"},u=Ln,b()}async function g(_){_.preventDefault(),i=!0,r="",b();try{let y=await n.createSession(Dn(e));u&&sessionStorage.setItem(Ze+y.id,u),Ot(`/s/${y.id}`)}catch(y){Le(y)||(r=De(y)),i=!1,b()}}let v=_=>y=>{e={...e,[_]:y.target.value},b()},N=()=>{let _=t?.find(y=>y.name===e.provider);return c`
      <form class="card create" @submit=${g}>
        <div class="form-head">
          <h2>Start a session</h2>
          <button type="button" class="secondary" @click=${C}>Demo preset</button>
        </div>
        <p class="muted">
          The demo preset uses the offline demo model and asks for your approval before it writes
          <code>notes/task.md</code>.
        </p>
        <label for="new-title">Title</label>
        <input id="new-title" maxlength="500" placeholder="e.g. Draft the release notes" .value=${e.title} @input=${v("title")} />
        <label for="new-system">System prompt</label>
        <textarea id="new-system" rows="2" maxlength="65536" placeholder="Optional extra instructions" .value=${e.system} @input=${v("system")}></textarea>
        <fieldset>
          <legend>Model</legend>
          <div class="row">
            <span class="cell">
              <label for="new-provider">Provider</label>
              <select id="new-provider" .value=${e.provider} @change=${v("provider")}>
                ${(t??[]).map(y=>c`<option value=${y.name} ?selected=${y.name===e.provider}>
                    ${y.name}${y.demo?" (offline demo)":""}${y.isDefault?" — default":""}
                  </option>`)}
              </select>
            </span>
            <span class="cell">
              <label for="new-model">Name</label>
              <input id="new-model" placeholder=${_?.defaultModel??"the provider's default"} .value=${e.name} @input=${v("name")} />
            </span>
            <span class="cell">
              <label for="new-window">Context window</label>
              <input id="new-window" type="number" min="1024" step="1024" placeholder="128000" .value=${e.contextWindow} @input=${v("contextWindow")} />
            </span>
          </div>
        </fieldset>
        <fieldset>
          <legend>Approval rules: ask me before</legend>
          <div class="row checks">
            ${qn.map(y=>c`<label class="check"><input
                  type="checkbox"
                  .checked=${e.approve.has(y)}
                  @change=${U=>{let W=new Set(e.approve);U.target.checked?W.add(y):W.delete(y),e={...e,approve:W},b()}}
                /><code>${y}</code></label>`)}
          </div>
          <label for="new-paths">Only for these paths (comma-separated; file tools)</label>
          <input id="new-paths" placeholder="every path" .value=${e.approvePaths} @input=${v("approvePaths")} />
        </fieldset>
        <fieldset>
          <legend>Placement</legend>
          <div class="row">
            <span class="cell">
              <label for="new-location">Location hint</label>
              <select id="new-location" .value=${e.locationHint} @change=${v("locationHint")}>
                <option value="">automatic</option>
                ${Pn.map(y=>c`<option value=${y} ?selected=${y===e.locationHint}>${y}</option>`)}
              </select>
            </span>
            <span class="cell">
              <label for="new-jurisdiction">Jurisdiction</label>
              <select id="new-jurisdiction" .value=${e.jurisdiction} @change=${v("jurisdiction")}>
                <option value="">none</option>
                <option value="eu" ?selected=${e.jurisdiction==="eu"}>eu</option>
                <option value="fedramp" ?selected=${e.jurisdiction==="fedramp"}>fedramp</option>
              </select>
            </span>
          </div>
        </fieldset>
        <button type="submit" ?disabled=${i}>New session</button>
        <p class="error" role="alert">${r}</p>
      </form>
      <h2>Sessions</h2>
      ${D()}
    `},D=()=>h&&!o?c`<p class="error" role="alert">${h}</p>`:o?o.length===0?c`<p class="muted empty">No sessions yet. Start one above: the Demo preset works offline, with no API key.</p>`:c`<ul class="sessions" aria-label="Your sessions">
      ${he(o,_=>_.id,_=>c`<li data-id=${_.id}>
          <a href=${`/s/${_.id}`} data-nav>${_.title||"Untitled session"}</a>
          ${Je(_.status)} ${_.openTurn?c`<span class="badge">turn open</span>`:$}
          ${_.pendingApprovals.length?c`<span class="badge approvals" data-state="waiting_approval">${_.pendingApprovals.length} approval${_.pendingApprovals.length===1?"":"s"} waiting</span>`:$}
          ${Xe(_)}
          <span class="muted">${_.highWater} events · updated ${new Date(_.updatedAt).toLocaleString()}</span>
        </li>`)}
      ${a?c`<li><button type="button" class="link" @click=${()=>{k(!0)}}>More</button></li>`:$}
    </ul>
    ${h?c`<p class="error" role="alert">${h}</p>`:$}`:c`<p class="muted">Loading…</p>`;b(),w(),k();let F=setInterval(()=>{document.visibilityState==="visible"&&k()},Cn);return()=>{m=!0,clearInterval(F)}}ye();export{Dn as formOptions};
